package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.property.Arb
import io.kotest.property.arbitrary.arbitrary
import io.kotest.property.arbitrary.int
import io.kotest.property.arbitrary.long
import io.kotest.property.arbitrary.string
import io.kotest.property.arbitrary.of
import io.kotest.property.checkAll
import java.nio.file.Path
import java.util.OptionalLong

class ArrayHandleTest : FunSpec({
    val alnum = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-").toList()
    val names = arbitrary { rs -> val n = rs.random.nextInt(1, 41); "a" + (1 until n).map { alnum[rs.random.nextInt(alnum.size)] }.joinToString("") }
    val ids = arbitrary { if (it.random.nextBoolean()) OptionalLong.of(it.random.nextLong()) else OptionalLong.empty() }
    val handles = arbitrary {
        val id = ids.bind()
        when (Arb.int(0..3).bind()) {
            0 -> ArrayHandle.shm(names.bind(), id)
            1 -> ArrayHandle.memfd(Arb.long(1L..4_000_000L).bind(), Arb.int(0..100_000).bind(), id)
            2 -> ArrayHandle.file(Path.of("/" + Arb.string(1..30).bind().replace("\u0000", "")), id)
            else -> ArrayHandle.anonymous(Arb.long(1L..4_000_000L).bind(), id)
        }
    }

    test("parse is the inverse of toString") {
        checkAll(1000, handles) { h ->
            val text = h.toString()
            val back = ArrayHandle.parse(text)
            back shouldBe h
            back.toString() shouldBe text
            back.backend() shouldBe h.backend()
            back.id() shouldBe h.id()
        }
    }

    test("string forms are the ones DESIGN names") {
        ArrayHandle.shm("frames", OptionalLong.empty()).toString() shouldBe "shm://frames"
        ArrayHandle.memfd(12, 7, OptionalLong.of(0xabcL)).toString() shouldBe "memfd://12/7?id=0000000000000abc"
        ArrayHandle.file(Path.of("/data/a b?.npy"), OptionalLong.empty()).toString() shouldBe "file:///data/a%20b%3F.npy"
        (ArrayHandle.parse("file:///data/a%20b%3F.npy") as ArrayHandle.File).path() shouldBe Path.of("/data/a b?.npy")
    }

    context("malformed handles are rejected with the text and the reason") {
        withData(
            "frames" to "expected <backend>://",
            "tcp://x" to "unknown backend 'tcp'",
            "shm://a/b" to "must not contain '/'",
            "shm://.." to "must not contain '..'",
            "shm://" to "must not be empty",
            "memfd://12" to "memfd://<pid>/<fd>",
            "memfd://x/1" to "decimal numbers",
            "memfd://0/1" to "pid > 0",
            "file://relative" to "absolute path",
            "shm://a?id=12" to "id=<16 hex digits>",
            "shm://a?id=zzzzzzzzzzzzzzzz" to "16 hex digits",
            "shm://a?name=b" to "id=<16 hex digits>",
        ) { (text, why) ->
            val e = shouldThrow<IllegalArgumentException> { ArrayHandle.parse(text) }
            e.message shouldContain "invalid array handle '$text'"
            e.message shouldContain why
        }
    }

    test("a file handle of PATH_MAX bytes or more is refused by parse naming the limit; impossible paths are not found at attach") {
        val long = ("/" + "d".repeat(200)).repeat(21) // 4221 bytes
        shouldThrow<IllegalArgumentException> { ArrayHandle.parse("file://$long") }.message shouldContain
            "file handle path is 4221 bytes long; Linux takes paths of at most 4095 bytes (PATH_MAX 4096, with the terminating NUL)"
        shouldThrow<IllegalArgumentException> { ArrayHandle.file(Path.of(long), OptionalLong.empty()) }
        val fits = "/tmp" + ("/" + "e".repeat(254)).repeat(16) // 4084 bytes: parsed, then not there
        ArrayHandle.parse("file://$fits").toString() shouldBe "file://$fits"
        shouldThrow<SegmentNotFoundException> { SharedArrays.attach("file://$fits") }
        // a name longer than NAME_MAX (255), and a file where a directory should be: nothing can be there
        shouldThrow<SegmentNotFoundException> { SharedArrays.attach("file:///tmp/" + "n".repeat(300)) }.message shouldContain "too long"
        shouldThrow<SegmentNotFoundException> { SharedArrays.attach("file:///etc/passwd/x") }.message shouldContain "not a directory"
    }

    test("attach of any path throws only what attach documents") {
        val java = ProcessHandle.current().info().command().orElse("/bin/sh") // a program being run: ETXTBSY
        val places = listOf("/", "/tmp", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/shm", "/proc/self/maps",
            "/proc/self/mem", "/proc/self/status", "/proc/self/exe", "/proc/self/fd/0", "/sys/kernel/mm/transparent_hugepage/enabled",
            "/etc/passwd", "/etc/passwd/x", "/etc/shadow", "/nonexistent/a", java, "/tmp/" + "n".repeat(256), ("/x").repeat(2047))
        val documented = listOf(SegmentNotFoundException::class, InvalidSegmentException::class, SegmentTruncatedException::class)
        for (p in places) {
            val e = shouldThrow<SharedArrayException> { SharedArrays.attach(ArrayHandle.file(Path.of(p), OptionalLong.empty())) }
            withClue("attach of $p threw ${e.javaClass.simpleName}: ${e.message}") { documented.any { it.isInstance(e) } shouldBe true }
        }
    }

    test("backend names") {
        checkAll(Arb.of(Backend.entries)) { b -> Backend.parse(b.id().uppercase()) shouldBe b }
        shouldThrow<IllegalArgumentException> { Backend.parse("ram") }.message shouldBe
            "unknown backend 'ram'; accepted: shm, memfd, file, anonymous"
    }
})

package dev.sharedarrays

import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions

class LifecycleTest : FunSpec({
    val shm = SharedArrays.shmDirectory()

    context("every backend: create, attach in the same process, write through one view, read through the other") {
        withData(Backend.entries) { backend ->
            SharedArrays.create(F64.TYPE, longArrayOf(3, 4), CreateOptions.defaults().backend(backend)).use { a ->
                a.backend() shouldBe backend
                a.shape().toList() shouldBe listOf(3L, 4L)
                a.size() shouldBe 12
                a.getDouble(11) shouldBe 0.0
                SharedArrays.attach(a.handle().toString()).use { b ->
                    b.isOwner() shouldBe false
                    b.id() shouldBe a.id()
                    b.setDouble(5, 4.5)
                    a.getDouble(5) shouldBe 4.5
                    a.setDouble(0, -1.25)
                    b.getDouble(0) shouldBe -1.25
                }
            }
        }
    }

    context("flat get/set round-trips and wraps for every dtype") {
        withData(DType.all().associateBy { it.name() }) { t ->
            SharedArrays.createAny(t, longArrayOf(5), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
                a.itemSize() shouldBe t.itemSize()
                // Bool stores any nonzero value as 1 (numpy's cast to bool)
                val hundred = if (t == Bool.TYPE) 1L else 100L
                a.setLong(1, 100)
                a.getLong(1) shouldBe hundred
                a.getDouble(1) shouldBe hundred.toDouble()
                a.setLong(2, 300)
                val expected = when (t) {
                    U8.TYPE -> 44L
                    I8.TYPE -> 44L
                    Bool.TYPE -> 1L
                    else -> 300L
                }
                a.getLong(2) shouldBe expected
                a.setLong(3, -1)
                val minusOne = when (t) {
                    U8.TYPE -> 255L
                    U16.TYPE -> 65535L
                    U32.TYPE -> 4294967295L
                    Bool.TYPE -> 1L
                    else -> -1L // U64 reads as its bit pattern
                }
                a.getLong(3) shouldBe minusOne
                if (t == U64.TYPE) a.getDouble(3) shouldBe 1.8446744073709552E19
            }
        }
    }

    test("close and destroy are idempotent; use after close is IllegalStateException") {
        val a = SharedArrays.create(I32.TYPE, longArrayOf(10), CreateOptions.defaults().backend(Backend.SHM))
        val file = shm.resolve((a.handle() as ArrayHandle.Shm).name())
        Files.exists(file) shouldBe true
        a.close()
        a.close()
        a.destroy()
        Files.exists(file) shouldBe false
        a.isClosed() shouldBe true
        shouldThrow<IllegalStateException> { a.getLong(0) }.message shouldContain "is closed"
        shouldThrow<IllegalStateException> { a.setLong(0, 1) }
        shouldThrow<IllegalStateException> { a.data() }
    }

    test("an attached view survives the owner's destroy; attaching again by name fails") {
        val a = SharedArrays.create(I64.TYPE, longArrayOf(4), CreateOptions.defaults().backend(Backend.SHM))
        val b = SharedArrays.attach(a.handle(), I64.TYPE)
        try {
            a.setLong(3, 77)
            a.destroy()
            b.getLong(3) shouldBe 77
            shouldThrow<SegmentNotFoundException> { SharedArrays.attach(a.handle()) }.message shouldContain "does not exist"
            shouldThrow<IllegalStateException> { b.destroy() }.message shouldContain "only the creator"
        } finally {
            b.close()
        }
    }

    test("persistent arrays survive their owner's close") {
        val a = SharedArrays.create(F32.TYPE, longArrayOf(2), CreateOptions.defaults().backend(Backend.SHM).persistent(true))
        try {
            a.setDouble(1, 2.5)
            a.close()
            SharedArrays.attach(a.handle(), F32.TYPE).use { it.getDouble(1) shouldBe 2.5 }
        } finally {
            SharedArrays.remove(a.handle())
        }
        Files.exists(shm.resolve((a.handle() as ArrayHandle.Shm).name())) shouldBe false
    }

    test("file backend at a chosen path is persistent and readable again") {
        val dir = scratchDir("file")
        val path = dir.toPath().resolve("grid.npy")
        try {
            SharedArrays.create(U16.TYPE, longArrayOf(2, 2), CreateOptions.defaults().file(path)).use {
                it.isPersistent() shouldBe true
                it.setLong(3, 65535)
                it.sync()
            }
            Files.exists(path) shouldBe true
            SharedArrays.attach("file://$path").use { it.getLong(3) shouldBe 65535 }
        } finally {
            dir.deleteRecursively()
        }
    }

    test("files are created with mode 0600") {
        SharedArrays.create(U8.TYPE, longArrayOf(16), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
            PosixFilePermissions.toString(Files.getPosixFilePermissions(shm.resolve((a.handle() as ArrayHandle.Shm).name()))) shouldBe "rw-------"
        }
    }

    context("bad names are rejected") {
        withData(
            "a/b" to "must not contain '/'",
            "a..b" to "must not contain '..'",
            ".hidden" to "must not start with '.'",
            "x".repeat(201) to "201 characters long, the limit is 200",
            "sp ace" to "may use only",
            "" to "must not be empty",
        ) { (name, why) ->
            shouldThrow<IllegalArgumentException> { CreateOptions.defaults().name(name) }.message shouldContain why
        }
    }

    test("creating an existing name fails without touching it") {
        val name = "sa-test-exists-" + ProcessHandle.current().pid()
        SharedArrays.create(I32.TYPE, longArrayOf(3), CreateOptions.defaults().backend(Backend.SHM).name(name)).use { a ->
            a.setLong(0, 42)
            val before = Files.readAllBytes(shm.resolve(name))
            val e = shouldThrow<SegmentExistsException> {
                SharedArrays.create(F64.TYPE, longArrayOf(1000), CreateOptions.defaults().backend(Backend.SHM).name(name))
            }
            e.message shouldContain "$shm/$name already exists"
            Files.readAllBytes(shm.resolve(name)).contentEquals(before) shouldBe true
            a.getLong(0) shouldBe 42
        }
        // a foreign file by that name is not touched either
        val foreign = shm.resolve(name)
        Files.writeString(foreign, "not ours")
        try {
            shouldThrow<SegmentExistsException> {
                SharedArrays.create(F64.TYPE, longArrayOf(1), CreateOptions.defaults().backend(Backend.SHM).name(name))
            }
            Files.readString(foreign) shouldBe "not ours"
        } finally {
            Files.delete(foreign)
        }
    }

    test("attach checks the handle's id and the requested dtype") {
        val name = "sa-test-id-" + ProcessHandle.current().pid()
        SharedArrays.create(F64.TYPE, longArrayOf(2), CreateOptions.defaults().backend(Backend.SHM).name(name)).use { a ->
            val wrongId = ArrayHandle.parse("shm://$name?id=0123456789abcdef")
            shouldThrow<InvalidSegmentException> { SharedArrays.attach(wrongId) }.message shouldContain "expects array id 0123456789abcdef"
            SharedArrays.attach(a.handle().withoutId()).use { it.id() shouldBe a.id() }
            shouldThrow<DTypeMismatchException> { SharedArrays.attach(a.handle(), I32.TYPE) }.message shouldContain "holds F64 (<f8), not I32 (<i4)"
        }
    }

    context("shapes are checked") {
        withData(
            longArrayOf() to "1 to 8 dimensions",
            LongArray(9) { 1 } to "1 to 8 dimensions",
            longArrayOf(3, 0) to "shape[1] is 0",
            longArrayOf(1L shl 40, 1L shl 30) to "1 TiB",
        ) { (shape, why) ->
            shouldThrow<IllegalArgumentException> { SharedArrays.create(F64.TYPE, *shape) }.message shouldContain why
        }
    }

    test("flat index out of range names the index and the bound") {
        SharedArrays.create(F64.TYPE, longArrayOf(2, 3), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
            shouldThrow<IndexOutOfBoundsException> { a.getDouble(6) }.message shouldBe
                "flat index 6 is out of bounds for size 6 (shape [2, 3])"
            shouldThrow<IndexOutOfBoundsException> { a.setLong(-1, 0) }.message shouldContain "flat index -1"
        }
    }

    test("an anonymous handle attaches in its own process and is a clear error elsewhere") {
        SharedArrays.create(I32.TYPE, longArrayOf(4), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
            SharedArrays.attach(a.handle()).use { v ->
                v.setLong(2, 9)
                a.getLong(2) shouldBe 9
            }
            val other = ArrayHandle.parse("anonymous://1?id=" + java.util.HexFormat.of().toHexDigits(a.id()))
            shouldThrow<SharedArrayException> { SharedArrays.attach(other) }.message shouldContain
                "anonymous arrays live in one process (pid 1)"
        }
    }

    test("memfd arrays are sealed against shrink and grow") {
        SharedArrays.create(F64.TYPE, longArrayOf(8), CreateOptions.defaults().backend(Backend.MEMFD)).use { a ->
            val path = a.path().get()
            java.io.RandomAccessFile(path.toFile(), "rw").use { f ->
                val size = f.length()
                shouldThrow<java.io.IOException> { f.setLength(size - 4096) }
                shouldThrow<java.io.IOException> { f.setLength(size + 4096) }
                f.length() shouldBe size
            }
        }
    }

    test("nothing of these tests is left in the shm directory") {
        val mine = Files.list(shm).use { s -> s.filter { it.fileName.toString().startsWith(".sa-tmp-" + ProcessHandle.current().pid()) }.toList() }
        mine shouldBe emptyList<Path>()
    }
})

package dev.sharedarrays.internal.backend

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.SegmentNotFoundException
import dev.sharedarrays.SharedArrays
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.nulls.shouldBeNull
import io.kotest.matchers.shouldBe
import java.nio.file.Path
import java.util.OptionalLong

/** Dispatch by handle kind and the choice of backend for a create (tests run without SHARED_ARRAYS_BACKEND). */
class BackendsTest : FunSpec({
    context("a create's backend: an explicit file wins, then the options, then the process default") {
        withData(
            mapOf(
                "file" to (CreateOptions.defaults().backend(Backend.MEMFD).file(Path.of("/tmp/x.npy")) to Backend.FILE),
                "asked for memfd" to (CreateOptions.defaults().backend(Backend.MEMFD) to Backend.MEMFD),
                "asked for anonymous" to (CreateOptions.defaults().backend(Backend.ANONYMOUS) to Backend.ANONYMOUS),
                "nothing asked" to (CreateOptions.defaults() to BackendSelection.current()),
            ),
        ) { (options, backend) ->
            BackendSelection.forCreate(options) shouldBe backend
        }
    }

    test("each backend gets its own kind of handle back") {
        for (b in listOf(Backend.SHM, Backend.MEMFD, Backend.ANONYMOUS)) {
            SharedArrays.create(F64.TYPE, longArrayOf(4), CreateOptions.defaults().backend(b)).use { a ->
                a.handle().backend() shouldBe b
                Backends.attach(a.handle()).let { s ->
                    s.handle().backend() shouldBe b
                    s.facts().id() shouldBe a.id()
                    s.close()
                }
            }
        }
    }

    test("an anonymous array is described from its mapping in its own process") {
        SharedArrays.create(I32.TYPE, longArrayOf(2, 3), CreateOptions.defaults().backend(Backend.ANONYMOUS)).use { a ->
            val info = SharedArrays.inspect(a.handle())
            info.path().shouldBeNull()
            info.handle() shouldBe a.handle()
            info.backend() shouldBe Backend.ANONYMOUS
            info.shape().toList() shouldBe listOf(2L, 3L)
            info.bytes() shouldBe 24
            info.creator().pid() shouldBe ProcessHandle.current().pid()
            info.creator().alive() shouldBe true
            shouldThrow<SegmentNotFoundException> { SharedArrays.inspect(a.handle().withoutId()) }.message shouldBe
                "anonymous array ${a.handle().withoutId()} can be inspected only inside process ${ProcessHandle.current().pid()}"
        }
    }

    test("a memfd array is described through /proc, under the path of its handle") {
        SharedArrays.create(F64.TYPE, longArrayOf(5), CreateOptions.defaults().backend(Backend.MEMFD)).use { a ->
            val h = a.handle() as ArrayHandle.Memfd
            val info = SharedArrays.inspect(h)
            info.path() shouldBe Path.of("/proc/${h.pid()}/fd/${h.fd()}")
            info.handle() shouldBe h
            info.backend() shouldBe Backend.MEMFD
            info.id() shouldBe a.id()
            info.bytes() shouldBe 40
        }
    }

    context("only arrays with a file can be removed by handle") {
        withData(
            ArrayHandle.memfd(1, 3, OptionalLong.empty()) to "memfd",
            ArrayHandle.anonymous(1, OptionalLong.empty()) to "anonymous",
        ) { (handle, id) ->
            shouldThrow<IllegalArgumentException> { SharedArrays.remove(handle) }.message shouldBe
                "$id arrays have no name to remove; they go when their last user closes them"
        }
    }

    test("ls and sweep look in the shm directory first") {
        Backends.scanDirectories().first() shouldBe SharedArrays.shmDirectory()
    }
})

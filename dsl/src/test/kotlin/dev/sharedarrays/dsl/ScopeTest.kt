package dev.sharedarrays.dsl

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.F64
import dev.sharedarrays.SegmentNotFoundException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldContainAll
import io.kotest.matchers.collections.shouldNotContainAnyOf
import io.kotest.matchers.shouldBe
import java.nio.file.Files
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking

/** `sharedArrays { }` releases what it holds, checked by listing the shm directory. */
class ScopeTest : FunSpec({
    fun shmNames(): Set<String> = Files.list(SharedArrays.shmDirectory()).use { s -> s.map { it.fileName.toString() }.toList().toSet() }

    test("normal exit: created arrays are gone from the shm directory, attached ones closed") {
        var names = emptyList<String>()
        lateinit var attached: SharedNDArray<F64>
        val sum = sharedArrays {
            val a: SharedNDArray<F64> = f64(2, 3)
            val m = u8(256, 256, name = "scope-test-mask-${ProcessHandle.current().pid()}")
            a[1, 2] = 4.5
            a += 2.0
            attached = attach<F64>(a.handle())
            attached[0, 0] shouldBe 2.0
            m.shape().toList() shouldBe listOf(256L, 256L)
            names = listOf(a, m).map { it.path().get().fileName.toString() }
            shmNames() shouldContainAll names
            a.sum()
        }
        sum shouldBe 16.5
        names[0].startsWith("sa-") shouldBe true
        shmNames() shouldNotContainAnyOf names
        attached.isClosed() shouldBe true
    }

    test("the DESIGN's example runs as written") {
        var handle: ArrayHandle? = null
        sharedArrays {
            val b = f64(2, 3)
            b.fill(1.0)
            val a: SharedNDArray<F64> = f64(2, 3)                 // zero-filled; auto backend
            val m = u8(256, 256, name = "mask-${ProcessHandle.current().pid()}") // one factory per dtype
            a[1, 2] = 4.5
            a += 2.0; a *= b; a -= b
            val v = a[0..1, 1 until 3]                             // view
            a.sum() shouldBe 1.0 * 5 + 5.5
            val h: ArrayHandle = a.handle                          // pass to another process
            val same = attach<F64>(h)                              // closed when the scope ends
            same[1, 2] shouldBe 5.5
            v[1, 1] shouldBe 5.5
            m.size() shouldBe 65536L
            handle = h
        }
        shouldThrow<SegmentNotFoundException> { SharedArrays.attach(handle!!) }
    }

    test("an exception: the arrays are gone and the exception comes through") {
        var names = emptyList<String>()
        val e = shouldThrow<IllegalStateException> {
            sharedArrays {
                val a = i32(1000)
                val b = barrier(2)
                names = listOf(a.path().get().fileName.toString(), b.handle().toString().substringAfter("shm://").substringBefore("?"))
                shmNames() shouldContainAll names
                error("boom")
            }
        }
        e.message shouldBe "boom"
        shmNames() shouldNotContainAnyOf names
    }

    test("a cancelled coroutine: the arrays are gone") {
        var names = emptyList<String>()
        runBlocking {
            val created = CompletableDeferred<Unit>()
            val job = launch {
                sharedArrays {
                    names = listOf(f64(100, 100), i64(10)).map { it.path().get().fileName.toString() }
                    created.complete(Unit)
                    awaitCancellation()
                }
            }
            created.await()
            shmNames() shouldContainAll names
            job.cancelAndJoin()
        }
        names.size shouldBe 2
        shmNames() shouldNotContainAnyOf names
    }

    test("registered arrays are closed; withAttached closes its arrays also when the block throws") {
        val outer = SharedArrays.create(F64.TYPE, 10L)
        try {
            lateinit var inner: SharedNDArray<F64>
            sharedArrays {
                inner = register(SharedArrays.attach(outer.handle(), F64.TYPE))
            }
            inner.isClosed() shouldBe true
            var seen: List<SharedNDArray<*>> = emptyList()
            shouldThrow<ArithmeticException> {
                withAttached(listOf(outer.handle(), outer.handle())) { arrays ->
                    seen = arrays
                    arrays.size shouldBe 2
                    throw ArithmeticException("inside")
                }
            }
            seen.all { it.isClosed() } shouldBe true
            withAttached<F64, Double>(outer.handle()) { it.fill(1.5); it.sum() } shouldBe 15.0
            outer.isClosed() shouldBe false
        } finally {
            outer.close()
        }
    }
})

package dev.sharedarrays

import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.doubles.plusOrMinus
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.util.SplittableRandom

/**
 * SharedArrays.withThreads: the kernels split over threads give the single thread's results (float
 * sums within rounding), on arrays past the split's size (2^20 elements) and not a multiple of its
 * parts; overlapping operands are not split; a bad count is refused.
 */
class ParallelKernelsTest : FunSpec({
    val n = 3_000_017L // not a multiple of the parts' 4096-element alignment
    val shm = CreateOptions.defaults().backend(Backend.SHM)

    fun f64(values: (Long) -> Double): SharedNDArray<F64> {
        val a = SharedArrays.create(F64.TYPE, longArrayOf(n), shm)
        val d = DoubleArray(n.toInt()) { values(it.toLong()) }
        a.copyFrom(d)
        return a
    }

    fun bits(a: SharedNDArray<*>): List<Long> = a.toDoubleArray().map { it.toRawBits() }

    test("math, arithmetic and comparisons on two threads equal one thread's, element for element") {
        val rnd = SplittableRandom(3)
        f64 { rnd.nextDouble(-4.0, 4.0) }.use { a ->
            f64 { if (it % 1000 == 7L) Double.NaN else rnd.nextDouble(-4.0, 4.0) }.use { b ->
                val ops: List<Pair<String, () -> SharedNDArray<*>>> = listOf(
                    "exp" to { ArrayMath.exp(a) }, "sin" to { ArrayMath.sin(a) }, "sqrt" to { ArrayMath.sqrt(a) },
                    "a + b" to { a.plus(b) }, "a * 2.5" to { a.times(2.5) }, "3 - a" to { a.subtractedFrom(3.0) },
                    "a > 0.5" to { a.gt(0.5) }, "a < b" to { a.lt(b) }, "clip" to { ArrayMath.clip(a, -1.0, 1.0) },
                    "f32 exp" to { ArrayMath.exp(a.astype(F32.TYPE)) },
                )
                // exp and sin may differ in the last bit between a JIT's tiers, with or without threads
                val transcendental = setOf("exp", "sin", "f32 exp")
                for ((name, op) in ops) withClue(name) {
                    val one = op().toDoubleArray()
                    val two = SharedArrays.withThreads(2) { op() }.toDoubleArray()
                    if (name in transcendental) {
                        fun ulp(x: Double) = if (name.startsWith("f32")) Math.ulp(x.toFloat()).toDouble() else Math.ulp(x)
                        val far = one.indices.filter { i -> !(Math.abs(one[i] - two[i]) <= 2 * ulp(one[i])) }
                        far.take(5).map { one[it] to two[it] } shouldBe emptyList()
                    } else {
                        two.map { it.toRawBits() } shouldBe one.map { it.toRawBits() }
                    }
                }
            }
        }
    }

    test("sums, minima and maxima over parts: floats within rounding, NaN wins, integers exact, U64 unsigned") {
        val rnd = SplittableRandom(5)
        f64 { rnd.nextDouble() }.use { a ->
            val one = a.sum()
            SharedArrays.withThreads(2) { a.sum() } shouldBe (one plusOrMinus 1e-9 * one)
            SharedArrays.withThreads(2) { a.minAsDouble() } shouldBe a.minAsDouble()
            SharedArrays.withThreads(2) { a.maxAsDouble() } shouldBe a.maxAsDouble()
            a.setDouble(n - 1, Double.NaN) // in the last part
            SharedArrays.withThreads(2) { a.maxAsDouble() }.isNaN() shouldBe true
            SharedArrays.withThreads(2) { a.minAsDouble() }.isNaN() shouldBe true
        }
        SharedArrays.create(U64.TYPE, longArrayOf(n), shm).use { u ->
            u.copyFrom(LongArray(n.toInt()) { it.toLong() * 7 })
            u.setLong(n - 3, -1L) // 2^64 - 1: the largest, though negative as a long
            u.setLong(5, 0)
            SharedArrays.withThreads(2) { u.maxAsLong() } shouldBe -1L
            SharedArrays.withThreads(2) { u.minAsLong() } shouldBe 0L
            SharedArrays.withThreads(3) { u.sum() } shouldBe u.sum()
        }
    }

    test("sorts on several threads give one thread's order: NaNs last, -0.0 before 0.0, unsigned by value") {
        val rnd = SplittableRandom(13)
        f64 { i -> if (i % 9973 == 0L) Double.NaN else if (i % 7 == 0L) -0.0 else if (i % 11 == 0L) 0.0 else rnd.nextDouble(-1.0, 1.0) }
            .use { a ->
                val one = bits(a.sorted())
                bits(SharedArrays.withThreads(2) { a.sorted() }) shouldBe one
                SharedArrays.withThreads(2) { a.sort() }
                bits(a) shouldBe one
            }
        SharedArrays.create(U64.TYPE, longArrayOf(n), shm).use { u ->
            u.copyFrom(LongArray(n.toInt()) { rnd.nextLong() })
            val one = u.sorted().toLongArray().toList()
            SharedArrays.withThreads(2) { u.sorted() }.toLongArray().toList() shouldBe one
            one.zipWithNext().all { (x, y) -> java.lang.Long.compareUnsigned(x, y) <= 0 } shouldBe true
        }
    }

    test("an input that overlaps the output in another layout is read as one thread reads it") {
        val rnd = SplittableRandom(11)
        f64 { rnd.nextDouble() }.use { a ->
            f64 { 0.0 }.use { want ->
                val src = a.slice(0, 0, n - 1, 1)
                val dst = a.slice(0, 1, n, 1)
                want.slice(0, 1, n, 1).copyFrom(ArrayMath.sqrt(src))
                SharedArrays.withThreads(2) { ArrayMath.sqrt(src, dst) }
                bits(dst) shouldBe bits(want.slice(0, 1, n, 1))
            }
        }
    }

    test("the parts run on the library's named daemon threads") {
        f64 { it.toDouble() }.use { a ->
            SharedArrays.withThreads(2) { ArrayMath.exp(a) }
            val kernel = Thread.getAllStackTraces().keys.filter { it.name == "sharedarrays-kernel" }
            kernel.map { it.isDaemon }.distinct() shouldBe listOf(true)
        }
    }

    test("a thread count outside 1 to 256 is refused") {
        shouldThrow<IllegalArgumentException> { SharedArrays.withThreads(0) { 1 } }.message shouldContain "from 1 to 256"
        shouldThrow<IllegalArgumentException> { SharedArrays.withThreads(257) { 1 } }.message shouldContain "not 257"
    }
})

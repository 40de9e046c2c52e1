package dev.sharedarrays.internal.array

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.F32
import dev.sharedarrays.F64
import dev.sharedarrays.I32
import dev.sharedarrays.I64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.U32
import dev.sharedarrays.U64
import dev.sharedarrays.internal.kernel.ElementType
import dev.sharedarrays.internal.os.JdkSimdSort
import io.kotest.core.spec.style.FunSpec
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import java.lang.foreign.MemorySegment
import java.lang.foreign.ValueLayout.JAVA_INT
import java.lang.foreign.ValueLayout.JAVA_LONG
import java.nio.file.Files
import java.nio.file.Path
import java.util.SplittableRandom

/**
 * Sorts of long contiguous lanes of the 32- and 64-bit types (the JDK's native sort where it is
 * available: AVX-512, or AVX2 for 32-bit elements) against a reference sort of the same bits: NaNs of any payload and sign last,
 * -0.0 before 0.0, infinities, duplicates, unsigned values past the signed range; and lanes along
 * a strided axis (the heap sort) giving the same order.
 */
class LaneSortTest : FunSpec({
    val anon = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    test("the native sort is reached on Linux x86_64: JDK 22-25 with AVX-512F/DQ, or for 32-bit elements JDK 23-25 with AVX2") {
        val flags = runCatching { Files.readAllLines(Path.of("/proc/cpuinfo")).first { it.startsWith("flags") }.split(Regex("\\s+")) }
            .getOrDefault(emptyList())
        val jdk = Runtime.version().feature()
        val linked = System.getProperty("os.arch") in setOf("amd64", "x86_64") &&
            Files.exists(Path.of(System.getProperty("java.home"), "lib", "libsimdsort.so"))
        val wide = linked && jdk in 22..25 && "avx512f" in flags && "avx512dq" in flags
        val narrow = wide || linked && jdk in 23..25 && "avx2" in flags
        JdkSimdSort.sorts(JdkSimdSort.DOUBLE) shouldBe wide
        JdkSimdSort.sorts(JdkSimdSort.LONG) shouldBe wide
        JdkSimdSort.sorts(JdkSimdSort.FLOAT) shouldBe narrow
        JdkSimdSort.sorts(JdkSimdSort.INT) shouldBe narrow
        JdkSimdSort.sorts(4) shouldBe false // boolean
        LaneSort.nativeType(ElementType.U32) shouldBe if (narrow) JdkSimdSort.INT else 0
        LaneSort.nativeType(ElementType.U64) shouldBe if (wide) JdkSimdSort.LONG else 0
        LaneSort.nativeType(ElementType.I16) shouldBe 0
        if (!wide) { // where only the AVX2 entry (which would stop the process on a 64-bit type) or none is linked
            java.lang.foreign.Arena.ofConfined().use { arena ->
                val seg = arena.allocate(16)
                shouldThrow<IllegalArgumentException> { JdkSimdSort.sort(seg, JdkSimdSort.DOUBLE, 0, 2) }
                shouldThrow<IllegalArgumentException> { JdkSimdSort.sort(seg, JdkSimdSort.LONG, 0, 2) }
            }
        }
    }

    for (dtype in listOf<DType<*>>(F64.TYPE, F32.TYPE, I64.TYPE, I32.TYPE, U64.TYPE, U32.TYPE)) {
        test("${dtype.name()}: sort() and sorted() of long lanes match a reference sort of the bits") {
            val rnd = SplittableRandom(dtype.code().toLong())
            for (n in listOf(1, 2, 17, 300, 100_003)) {
                for (specials in listOf(false, true)) {
                    SharedArrays.createAny(dtype, longArrayOf(n.toLong()), anon).use { a ->
                        val bits = LongArray(n) { randomBits(dtype, rnd, specials) }
                        write(a, bits)
                        val expected = reference(dtype, bits)
                        a.sorted().use { c -> same(dtype, read(c), expected) }
                        read(a).toList() shouldBe bits.toList() // sorted() leaves a alone
                        a.sort()
                        same(dtype, read(a), expected)
                    }
                }
            }
        }

        test("${dtype.name()}: a shm array (whose file may shrink) sorts through process-local memory, small and large") {
            val rnd = SplittableRandom(200L + dtype.code())
            for (n in listOf(1000, 100_003)) {
                SharedArrays.createAny(dtype, longArrayOf(2, n.toLong()), CreateOptions.defaults().backend(Backend.SHM)).use { a ->
                    val bits = LongArray(2 * n) { randomBits(dtype, rnd, true) }
                    write(a, bits)
                    a.sort()
                    val got = read(a)
                    for (r in 0 until 2) {
                        same(dtype, got.copyOfRange(r * n, (r + 1) * n), reference(dtype, bits.copyOfRange(r * n, (r + 1) * n)))
                    }
                }
            }
        }

        test("${dtype.name()}: lanes of both axes of a matrix, contiguous and strided, sort alike") {
            val rnd = SplittableRandom(100L + dtype.code())
            val rows = 3
            val cols = 20_011
            SharedArrays.createAny(dtype, longArrayOf(rows.toLong(), cols.toLong()), anon).use { a ->
                val bits = LongArray(rows * cols) { randomBits(dtype, rnd, true) }
                write(a, bits)
                a.sorted(1).use { c ->
                    val got = read(c)
                    for (r in 0 until rows) {
                        same(dtype, got.copyOfRange(r * cols, (r + 1) * cols), reference(dtype, bits.copyOfRange(r * cols, (r + 1) * cols)))
                    }
                }
                a.sorted(0).use { c ->
                    val got = read(c)
                    for (col in listOf(0, 1, cols / 2, cols - 1)) {
                        same(dtype, LongArray(rows) { got[it * cols + col] }, reference(dtype, LongArray(rows) { bits[it * cols + col] }))
                    }
                }
                // a view whose lanes start mid-row: slices of the segment at an element offset
                val view = a.slice(1, 5, cols.toLong(), 1)
                view.sort()
                val got = read(a)
                for (r in 0 until rows) {
                    got.copyOfRange(r * cols, r * cols + 5).toList() shouldBe bits.copyOfRange(r * cols, r * cols + 5).toList()
                    same(dtype, got.copyOfRange(r * cols + 5, (r + 1) * cols), reference(dtype, bits.copyOfRange(r * cols + 5, (r + 1) * cols)))
                }
            }
        }
    }
})

internal fun randomBits(t: DType<*>, rnd: SplittableRandom, specials: Boolean): Long {
    val special = specials && rnd.nextInt(8) == 0
    return when (t) {
        F64.TYPE -> if (special) {
            listOf(
                0x7ff8000000000000L or rnd.nextLong(1L shl 51), // NaNs of many payloads, either sign
                java.lang.Long.parseUnsignedLong("fff0000000000001", 16) + rnd.nextLong(1000),
                java.lang.Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                java.lang.Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
                0L, java.lang.Double.doubleToRawLongBits(-0.0),
                java.lang.Double.doubleToRawLongBits(Double.MIN_VALUE),
                java.lang.Double.doubleToRawLongBits(-Double.MAX_VALUE),
            )[rnd.nextInt(8)]
        } else {
            java.lang.Double.doubleToRawLongBits(if (rnd.nextBoolean()) rnd.nextInt(-50, 50).toDouble() else rnd.nextDouble(-1e6, 1e6))
        }
        F32.TYPE -> (if (special) {
            listOf(
                0x7fc00000 or rnd.nextInt(1 shl 22), 0xff800001.toInt() + rnd.nextInt(1000),
                java.lang.Float.floatToRawIntBits(Float.POSITIVE_INFINITY), java.lang.Float.floatToRawIntBits(Float.NEGATIVE_INFINITY),
                0, java.lang.Float.floatToRawIntBits(-0.0f), java.lang.Float.floatToRawIntBits(Float.MIN_VALUE),
                java.lang.Float.floatToRawIntBits(-Float.MAX_VALUE),
            )[rnd.nextInt(8)]
        } else {
            java.lang.Float.floatToRawIntBits(if (rnd.nextBoolean()) rnd.nextInt(-50, 50).toFloat() else rnd.nextDouble(-1e6, 1e6).toFloat())
        }).toLong() and 0xffffffffL
        I64.TYPE, U64.TYPE -> if (special) listOf(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L)[rnd.nextInt(4)]
            else if (rnd.nextBoolean()) rnd.nextLong(-100, 100) else rnd.nextLong()
        else -> (if (special) listOf(Int.MIN_VALUE, Int.MAX_VALUE, -1, 0)[rnd.nextInt(4)]
            else if (rnd.nextBoolean()) rnd.nextInt(-100, 100) else rnd.nextInt()).toLong() and 0xffffffffL
    }
}

/** numpy's order of the elements with these bits: floats by Double.compare (NaNs last, -0.0 first), unsigned by value. */
internal fun reference(t: DType<*>, bits: LongArray): List<Long> = when (t) {
    F64.TYPE -> bits.sortedWith { x, y -> java.lang.Double.compare(java.lang.Double.longBitsToDouble(x), java.lang.Double.longBitsToDouble(y)) }
    F32.TYPE -> bits.sortedWith { x, y -> java.lang.Float.compare(java.lang.Float.intBitsToFloat(x.toInt()), java.lang.Float.intBitsToFloat(y.toInt())) }
    I64.TYPE -> bits.sorted()
    U64.TYPE -> bits.sortedWith { x, y -> java.lang.Long.compareUnsigned(x, y) }
    I32.TYPE -> bits.sortedBy { it.toInt() }
    else -> bits.sorted() // U32 bits as non-negative longs
}

/** Equal bits, except that a NaN matches any NaN (numpy does not keep payloads either; a signalling NaN may come back quiet). */
internal fun same(t: DType<*>, got: LongArray, expected: List<Long>) {
    fun isNaN(x: Long) = when (t) {
        F64.TYPE -> java.lang.Double.isNaN(java.lang.Double.longBitsToDouble(x))
        F32.TYPE -> java.lang.Float.isNaN(java.lang.Float.intBitsToFloat(x.toInt()))
        else -> false
    }
    got.map { if (isNaN(it)) "NaN" else it.toString() } shouldBe expected.map { if (isNaN(it)) "NaN" else it.toString() }
}

internal fun write(a: SharedNDArray<*>, bits: LongArray) {
    val s: MemorySegment = a.data()
    bits.forEachIndexed { i, b ->
        when (a.dtype().itemSize()) {
            8 -> s.setAtIndex(JAVA_LONG, i.toLong(), b)
            else -> s.setAtIndex(JAVA_INT, i.toLong(), b.toInt())
        }
    }
}

/** The elements of a C-contiguous array as bits (32-bit ones zero-extended). */
internal fun read(a: SharedNDArray<*>): LongArray {
    val s: MemorySegment = a.data()
    return LongArray(a.size().toInt()) {
        when (a.dtype().itemSize()) {
            8 -> s.getAtIndex(JAVA_LONG, it.toLong())
            else -> s.getAtIndex(JAVA_INT, it.toLong()).toLong() and 0xffffffffL
        }
    }
}

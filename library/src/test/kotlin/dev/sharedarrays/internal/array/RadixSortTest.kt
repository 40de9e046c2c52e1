package dev.sharedarrays.internal.array

import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import java.lang.foreign.Arena
import java.lang.foreign.ValueLayout.JAVA_LONG
import java.util.SplittableRandom

/**
 * The heap lanes' radix sort against Arrays.sort on the same values: every byte of a key varying or
 * few of them (passes skipped), signed extremes, doubles with NaNs of both signs and any payload
 * (kept, last), -0.0 before 0.0, infinities, sub-ranges of a larger array, lengths around the
 * switch to Arrays.sort; longs of uneven spread (constant bytes between varying ones, one key in a
 * third, doubles' bits, sorted and reversed runs); keys for the most-significant-digit sort in clusters,
 * with outliers and duplicates.
 */
class RadixSortTest : FunSpec({
    val lengths = listOf(RadixSort.MIN_LENGTH - 1, RadixSort.MIN_LENGTH, RadixSort.MIN_LENGTH + 1, 200_003)

    fun longs(n: Int, rnd: SplittableRandom, kind: Int): LongArray = LongArray(n) {
        when (kind) {
            0 -> rnd.nextLong() // every byte varies
            1 -> rnd.nextLong(-300, 300) // high bytes all 0x00 or 0xff
            2 -> 0x1234_0000_0000L + rnd.nextInt(1 shl 20) // three bytes vary, the rest are one value
            3 -> listOf(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, 1L)[rnd.nextInt(5)]
            4 -> (rnd.nextLong(256) shl 56) or rnd.nextLong(256) // bytes 0 and 7 vary: the passes between are skipped
            else -> 42L // all equal: no pass at all
        }
    }

    fun doubles(n: Int, rnd: SplittableRandom): DoubleArray = DoubleArray(n) {
        if (rnd.nextInt(6) == 0) {
            java.lang.Double.longBitsToDouble(
                listOf(
                    0x7ff8000000000000L or rnd.nextLong(1L shl 51),
                    java.lang.Long.parseUnsignedLong("fff8000000000000", 16) or rnd.nextLong(1L shl 51),
                    java.lang.Double.doubleToRawLongBits(Double.POSITIVE_INFINITY),
                    java.lang.Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
                    0L, java.lang.Double.doubleToRawLongBits(-0.0),
                    java.lang.Double.doubleToRawLongBits(Double.MIN_VALUE),
                    java.lang.Double.doubleToRawLongBits(-Double.MIN_VALUE),
                )[rnd.nextInt(8)],
            )
        } else if (rnd.nextBoolean()) {
            rnd.nextDouble()
        } else {
            rnd.nextDouble(-1e300, 1e300)
        }
    }

    /** The bits in order, the NaNs (a run at the end) as a sorted multiset of their bits. */
    fun canonical(a: DoubleArray): List<Long> {
        val bits = a.map { java.lang.Double.doubleToRawLongBits(it) }
        val firstNaN = a.indexOfFirst { it.isNaN() }.let { if (it < 0) a.size else it }
        a.drop(firstNaN).all { it.isNaN() } shouldBe true
        return bits.take(firstNaN) + bits.drop(firstNaN).sorted()
    }

    test("longs sort as Arrays.sort sorts them, whole and as a range of a larger array") {
        val rnd = SplittableRandom(7)
        for (n in lengths) {
            for (kind in 0..5) {
                val a = longs(n, rnd, kind)
                val expected = a.copyOf().also { java.util.Arrays.sort(it) }
                RadixSort.sort(a, 0, n, LongArray(n))
                a.toList() shouldBe expected.toList()

                val big = longs(n + 20, rnd, kind)
                val before = big.copyOf()
                RadixSort.sort(big, 7, 7 + n, LongArray(n + 20))
                big.copyOfRange(0, 7).toList() shouldBe before.copyOfRange(0, 7).toList()
                big.copyOfRange(7 + n, n + 20).toList() shouldBe before.copyOfRange(7 + n, n + 20).toList()
                big.copyOfRange(7, 7 + n).toList() shouldBe before.copyOfRange(7, 7 + n).also { java.util.Arrays.sort(it) }.toList()
            }
        }
    }

    test("doubles sort as Arrays.sort sorts them: -0.0 before 0.0, every NaN kept and last") {
        val rnd = SplittableRandom(11)
        for (n in lengths) {
            val a = doubles(n, rnd)
            val expected = a.copyOf().also { java.util.Arrays.sort(it) }
            RadixSort.sort(a, 0, n, LongArray(n), LongArray(n))
            canonical(a) shouldBe canonical(expected)

            val big = doubles(n + 9, rnd)
            val before = big.copyOf()
            RadixSort.sort(big, 4, 4 + n, LongArray(n + 9), LongArray(n + 9))
            canonical(big.copyOfRange(4, 4 + n)) shouldBe canonical(before.copyOfRange(4, 4 + n).also { java.util.Arrays.sort(it) })
            big.copyOfRange(0, 4).map { java.lang.Double.doubleToRawLongBits(it) } shouldBe
                before.copyOfRange(0, 4).map { java.lang.Double.doubleToRawLongBits(it) }
        }
    }

    test("sortWide sorts 64-bit elements of a segment where they lie, on 1 and 2 threads, around a part it leaves alone") {
        val rnd = SplittableRandom(17)
        val n = 3 * RadixSort.MIN_LENGTH + 3 // with a NaN in six, the keys are still over two threads' worth
        Arena.ofShared().use { arena ->
            val seg = arena.allocate(8L * (n + 10), 8)
            fun put(bits: LongArray) = bits.forEachIndexed { i, b -> seg.setAtIndex(JAVA_LONG, i.toLong(), b) }
            fun get() = LongArray(n + 10) { seg.getAtIndex(JAVA_LONG, it.toLong()) }
            for (parts in listOf(1, 2)) {
                for (withNaNs in listOf(false, true)) {
                    val d = doubles(n + 10, rnd).map { if (!withNaNs && it.isNaN()) 1.5 else it }.toDoubleArray()
                    put(d.map { java.lang.Double.doubleToRawLongBits(it) }.toLongArray())
                    RadixSort.sortWide(RadixSort.Kind.F64, seg, 5, n, LongArray(n), LongArray(n), parts)
                    val got = get().map { java.lang.Double.longBitsToDouble(it) }.toDoubleArray()
                    canonical(got.copyOfRange(5, 5 + n)) shouldBe canonical(d.copyOfRange(5, 5 + n).also { java.util.Arrays.sort(it) })
                    (got.take(5) + got.drop(5 + n)).map { java.lang.Double.doubleToRawLongBits(it) } shouldBe
                        (d.take(5) + d.drop(5 + n)).map { java.lang.Double.doubleToRawLongBits(it) }
                }
                for (kind in 0..5) {
                    val l = longs(n + 10, rnd, kind)
                    put(l)
                    RadixSort.sortWide(RadixSort.Kind.SIGNED, seg, 5, n, LongArray(n), LongArray(n), parts)
                    get().copyOfRange(5, 5 + n).toList() shouldBe l.copyOfRange(5, 5 + n).sorted()
                    put(l)
                    RadixSort.sortWide(RadixSort.Kind.UNSIGNED, seg, 5, n, LongArray(n), LongArray(n), parts)
                    get().copyOfRange(5, 5 + n).toList() shouldBe l.copyOfRange(5, 5 + n).sortedWith { x, y -> java.lang.Long.compareUnsigned(x, y) }
                    (get().take(5) + get().drop(5 + n)) shouldBe (l.take(5) + l.drop(5 + n))
                }
            }
        }
    }

    test("sortWide finds the bits in which the keys differ over the whole lane, not over its first blocks") {
        // the pass that makes the keys finds those bits block by block: a lane of one value but in its last
        // block (or its last element), where the values there differ in high bits, in the sign, or in low bits only
        val n = 2 * RadixSort.MIN_LENGTH + 5
        val rnd = SplittableRandom(23)
        Arena.ofShared().use { arena ->
            val seg = arena.allocate(8L * n, 8)
            for (parts in listOf(1, 2)) {
                for (tail in listOf(1, 3000)) {
                    for (late in listOf<(Int) -> Double>({ rnd.nextDouble(-1e300, 1e300) }, { 0.25 + it * Math.ulp(0.25) })) {
                        val d = DoubleArray(n) { if (it >= n - tail) late(it) else 0.25 }
                        d.forEachIndexed { i, v -> seg.setAtIndex(JAVA_LONG, i.toLong(), java.lang.Double.doubleToRawLongBits(v)) }
                        RadixSort.sortWide(RadixSort.Kind.F64, seg, 0, n, LongArray(n), LongArray(n), parts)
                        val got = DoubleArray(n) { java.lang.Double.longBitsToDouble(seg.getAtIndex(JAVA_LONG, it.toLong())) }
                        withClue("parts $parts, $tail late values") {
                            got.toList() shouldBe d.sorted()
                        }
                    }
                }
            }
        }
    }

    test("doubles all NaN, all NaN but one, and all one value sort (on the heap and in a segment, 1 and 2 threads)") {
        val n = 2 * RadixSort.MIN_LENGTH + 1
        val nan = java.lang.Double.longBitsToDouble(0x7ff8_0000_0000_0001L)
        val negativeNaN = java.lang.Double.longBitsToDouble(java.lang.Long.parseUnsignedLong("fff8000000000002", 16))
        val cases = listOf(
            DoubleArray(n) { if (it % 2 == 0) nan else negativeNaN },
            DoubleArray(n) { if (it == n / 2) -3.0 else nan },
            DoubleArray(n) { 2.5 },
        )
        Arena.ofShared().use { arena ->
            val seg = arena.allocate(8L * n, 8)
            for (d in cases) {
                val expected = canonical(d.copyOf().also { java.util.Arrays.sort(it) })
                canonical(d.copyOf().also { RadixSort.sort(it, 0, n, LongArray(n), LongArray(n)) }) shouldBe expected
                for (parts in listOf(1, 2)) {
                    d.forEachIndexed { i, v -> seg.setAtIndex(JAVA_LONG, i.toLong(), java.lang.Double.doubleToRawLongBits(v)) }
                    RadixSort.sortWide(RadixSort.Kind.F64, seg, 0, n, LongArray(n), LongArray(n), parts)
                    canonical(DoubleArray(n) { java.lang.Double.longBitsToDouble(seg.getAtIndex(JAVA_LONG, it.toLong())) }) shouldBe expected
                }
            }
        }
    }

    test("longs of uneven spread sort as Arrays.sort sorts them: constant bytes between varying ones, one key in a third, doubles' bits, runs") {
        val rnd = SplittableRandom(19)
        val n = 300_007
        val kinds: List<Pair<String, (Int) -> Long>> = listOf(
            "bits 40-41 and 0-9 vary, the bytes between are one value" to { _ -> (rnd.nextLong(4) shl 40) or rnd.nextLong(1024) },
            "three spread groups of bits vary" to { _ -> (rnd.nextLong(4) shl 40) or (rnd.nextLong(8) shl 28) or rnd.nextLong(1000) },
            "one key is a third of the keys" to { i -> if (i % 3 == 0) 7L else rnd.nextLong(1L shl 20) },
            "doubles in [0, 1): the top bytes crowd few values" to { _ -> java.lang.Double.doubleToRawLongBits(rnd.nextDouble()) },
            "doubles over 40 decades" to { _ -> java.lang.Double.doubleToRawLongBits(Math.exp(rnd.nextDouble(-50.0, 50.0))) },
            "sorted already" to { i -> i.toLong() * 3 },
            "reversed, low bits zero" to { i -> (n - i).toLong() shl 30 },
        )
        for ((name, kind) in kinds) {
            val a = LongArray(n) { kind(it) }
            val expected = a.copyOf().also { java.util.Arrays.sort(it) }
            RadixSort.sort(a, 0, n, LongArray(n))
            withClue(name) {
                (0 until n).firstOrNull { a[it] != expected[it] } shouldBe null // the first index out of order
            }
        }
    }

    test("keys that differ in six bytes or more (the most-significant-digit sort) in clusters, with outliers and duplicates sort as Arrays.sort sorts them") {
        val rnd = SplittableRandom(23)
        val n = 400_009
        val centers = LongArray(64) { rnd.nextLong() }
        val kinds: List<Pair<String, (Int) -> Long>> = listOf(
            "small keys, one in a thousand anywhere" to { i -> if (i % 1000 == 0) rnd.nextLong() else rnd.nextLong(1L shl 12) },
            "64 clusters ten bits wide" to { _ -> centers[rnd.nextInt(64)] + rnd.nextLong(1024) },
            "64 clusters, each key twice or more" to { _ -> centers[rnd.nextInt(64)] + rnd.nextLong(2000) * 0x1_0000_0001L },
            "a leaf's keys close together but for one" to { i -> if (i % 5000 == 0) rnd.nextLong() else (i / 5000).toLong() shl 40 or rnd.nextLong(1L shl 30) },
            "two values but for every 97th key" to { i -> if (i % 97 == 0) rnd.nextLong() else if (i % 2 == 0) Long.MIN_VALUE else Long.MAX_VALUE },
            "doubles of floats: low 29 bits zero" to { _ -> java.lang.Double.doubleToRawLongBits(rnd.nextDouble(-1e6, 1e6).toFloat().toDouble()) },
        )
        for ((name, kind) in kinds) {
            for (length in listOf(n, RadixSort.MIN_LENGTH + 3)) {
                val a = LongArray(length) { kind(it) }
                val expected = a.copyOf().also { java.util.Arrays.sort(it) }
                val parallel = a.copyOf()
                RadixSort.sort(a, 0, length, LongArray(length))
                HeapSorts.sort(parallel, 2)
                withClue("$name, $length keys") {
                    (0 until length).firstOrNull { a[it] != expected[it] } shouldBe null
                    (0 until length).firstOrNull { parallel[it] != expected[it] } shouldBe null // on two threads
                }
            }
        }
    }

    test("scratch lanes only for long lanes, each of the lane's length") {
        RadixSort.scratch(RadixSort.MIN_LENGTH - 1, 2) shouldBe null
        val lanes = RadixSort.scratch(RadixSort.MIN_LENGTH, 2)!!
        lanes.map { it.size } shouldBe listOf(RadixSort.MIN_LENGTH, RadixSort.MIN_LENGTH)
        RadixSort.scratch(Int.MAX_VALUE - 8, 2) shouldBe null // 48 GiB: over half of any test JVM's heap
    }

    test("the parallel heap sort (the most-significant-digit split on every thread, or a sample sort where its buckets would not share out) gives Arrays.sort's order") {
        val rnd = SplittableRandom(13)
        val n = 3 * RadixSort.MIN_LENGTH + 5
        for (parts in listOf(2, 3)) {
            val d = doubles(n, rnd)
            val de = d.copyOf().also { java.util.Arrays.sort(it) }
            HeapSorts.sort(d, parts)
            canonical(d) shouldBe canonical(de)
            for (kind in 0..5) { // kind 3: five values, so one bucket takes most keys; kind 5: one value
                val l = longs(n, rnd, kind)
                val le = l.copyOf().also { java.util.Arrays.sort(it) }
                HeapSorts.sort(l, parts)
                l.toList() shouldBe le.toList()
            }
        }
    }
})

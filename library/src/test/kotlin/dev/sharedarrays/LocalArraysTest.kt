package dev.sharedarrays

import dev.sharedarrays.testing.ChildJvm
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.comparables.shouldBeGreaterThanOrEqualTo
import io.kotest.matchers.longs.shouldBeLessThan
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.nio.file.Files

/** Process-local results (no file, freed by the GC), share(), astype, and broadcasting. */
class LocalArraysTest : FunSpec({
    fun shmFiles(): Set<String> = Files.list(SharedArrays.shmDirectory()).use { s -> s.map { it.fileName.toString() }.toList().toSet() }

    fun rssKiB(): Long = Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))
        .first { it.startsWith("VmRSS:") }.split(Regex("\\s+"))[1].toLong()

    fun f64(vararg values: Double, shape: LongArray = longArrayOf(values.size.toLong())): SharedNDArray<F64> =
        SharedArrays.create(F64.TYPE, *shape).also { it.copyFrom(values) }.let { shared -> shared.copy().also { shared.close() } }

    test("copy() is process-local: no file, nothing to close; share() makes a shared copy") {
        val before = shmFiles()
        val a = f64(1.0, 2.0, 3.0)
        a.isLocal shouldBe true
        a.path().isPresent shouldBe false
        shmFiles() shouldBe before
        a.share().use { s ->
            s.isLocal shouldBe false
            s.toDoubleArray().toList() shouldBe listOf(1.0, 2.0, 3.0)
            shmFiles().size shouldBe before.size + 1
        }
        shmFiles() shouldBe before
        shouldThrow<SegmentNotFoundException> { SharedArrays.attach(a.handle()) }
    }

    test("out-of-place arithmetic broadcasts a row over a matrix and leaves the operands alone") {
        val m = f64(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape = longArrayOf(2, 3))
        val row = f64(10.0, 20.0, 30.0)
        val c = m.plus(row)
        c.shape().toList() shouldBe listOf(2L, 3L)
        c.toDoubleArray().toList() shouldBe listOf(11.0, 22.0, 33.0, 14.0, 25.0, 36.0)
        m.toDoubleArray().toList() shouldBe listOf(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
        val col = f64(1.0, 2.0, shape = longArrayOf(2, 1))
        col.times(row).toDoubleArray().toList() shouldBe listOf(10.0, 20.0, 30.0, 20.0, 40.0, 60.0)
        m.subtractedFrom(1.0).toDoubleArray().toList() shouldBe listOf(0.0, -1.0, -2.0, -3.0, -4.0, -5.0)
        m.negate().getDouble(5) shouldBe -6.0
        shouldThrow<ShapeMismatchException> { m.plus(f64(1.0, 2.0)) }.message shouldBe
            "shapes [2, 3] and [2] do not broadcast: axis 1 of the result would be 3 and 2 (numpy's rule: trailing dimensions equal or 1)"
    }

    test("in-place broadcasting: matrix += row, matrix *= column; a shape that does not fit is refused") {
        val m = f64(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, shape = longArrayOf(2, 3))
        m.add(f64(1.0, 1.0, 1.0))
        m.mul(f64(2.0, 10.0, shape = longArrayOf(2, 1)))
        m.toDoubleArray().toList() shouldBe listOf(4.0, 6.0, 8.0, 50.0, 60.0, 70.0)
        shouldThrow<ShapeMismatchException> { f64(1.0, 2.0, 3.0).add(m) }.message shouldContain
            "the right side must broadcast to the left's shape"
    }

    test("integer out-of-place ops wrap, floor-divide and refuse a zero divisor") {
        val a = SharedArrays.create(I8.TYPE, 3).use { s -> s.copyFrom(byteArrayOf(-7, 100, 127)); s.copy() }
        a.plus(1L).toLongArray().toList() shouldBe listOf(-6L, 101L, -128L)
        a.dividedBy(2L).toLongArray().toList() shouldBe listOf(-4L, 50L, 63L)
        a.negate().toLongArray().toList() shouldBe listOf(7L, -100L, -127L)
        shouldThrow<ArithmeticException> { a.dividing(0L).dividedBy(a.times(0L)) }
        shouldThrow<DTypeMismatchException> { a.plus(0.5) }.message shouldBe
            "cannot add I8 elements by the float 0.5 (numpy would give float64): call astype(F64.TYPE) first, or pass a whole number"
        shouldThrow<DTypeMismatchException> { a.add(0.5) }.message shouldContain "in place"
    }

    test("astype casts as numpy does and refuses NaN, infinity and out-of-range values with the index") {
        val a = f64(-1.7, 2.9, 300.0, -0.0)
        a.astype(I32.TYPE).toLongArray().toList() shouldBe listOf(-1L, 2L, 300L, 0L)
        shouldThrow<ArithmeticException> { a.astype(U8.TYPE) }.message shouldBe
            "cannot cast F64 to U8: element 0 (flat index, shape [4]) is -1.7, which has no U8 value (numpy would store an undefined one); clip or replace it first"
        shouldThrow<ArithmeticException> { f64(1.0, Double.NaN).astype(I64.TYPE) }.message shouldContain "element 1"
        shouldThrow<ArithmeticException> { f64(1e19).astype(I64.TYPE) }
        f64(1e19).astype(U64.TYPE).getUnsigned(0).toString() shouldBe "10000000000000000000"
        a.astype(F32.TYPE).getDouble(0) shouldBe (-1.7f).toDouble()
        val i = SharedArrays.create(I32.TYPE, 2).use { s -> s.copyFrom(intArrayOf(-1, 70000)); s.copy() }
        i.astype(U8.TYPE).toLongArray().toList() shouldBe listOf(255L, 112L)
        i.astype(F64.TYPE).toDoubleArray().toList() shouldBe listOf(-1.0, 70000.0)
        i.transpose().astype(I16.TYPE).toLongArray().toList() shouldBe listOf(-1L, 4464L)
    }

    test("process-local arrays are native memory at every size (the SIMD loops take no heap rows), zeroed, and hold what is written") {
        for (n in longArrayOf(1, 7, 512, 513, 32_768, 32_769, 100_000)) {
            val z = NDArrays.zeros(F64.TYPE, n)
            z.data().isNative shouldBe true
            z.toDoubleArray().all { it == 0.0 } shouldBe true
            val m = NDArrays.zeros(Bool.TYPE, n)
            m.data().isNative shouldBe true
            z.fill(2.5)
            val gt = z.gt(1.0)
            gt.data().isNative shouldBe true
            gt.sum() shouldBe n.toDouble()
            z.plus(z).sum() shouldBe 5.0 * n
        }
    }

    test("close() frees a large temporary at once: the next one reuses its memory, what still refers to it fails cleanly") {
        val a = NDArrays.full(F64.TYPE, 1.5, 2_000_000) // 16 MB: a mapping, not the heap
        val c = a.plus(a)
        val address = c.data().address()
        val kept = c.data()
        val view = c.slice(0, 0, 10, 1)
        c.close()
        shouldThrow<IllegalStateException> { kept.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0) }
        shouldThrow<IllegalStateException> { view.getDouble(0) }
        val d = a.times(2.0)
        d.data().address() shouldBe address // no collection ran: only close() can have given it back
        d.getDouble(1_999_999) shouldBe 3.0
        // closed one by one, 200 temporaries never hold more than a, d and one of them (over what
        // earlier tests left for the collector, which only falls)
        val before = dev.sharedarrays.internal.backend.Backends.localBytes() - 2 * 16_056_320L
        repeat(200) {
            a.plus(a).use { t ->
                t.getDouble(it.toLong()) shouldBe 3.0
                (dev.sharedarrays.internal.backend.Backends.localBytes() - before <= 3 * 16_056_320L) shouldBe true
            }
        }
        d.close()
        a.close()
    }

    test("zeros() reads zero though its memory is a cut of a freed, dirty mapping; other cuts keep their data") {
        val keep = ArrayList<SharedNDArray<F64>>()
        for (i in 0 until 120) {
            NDArrays.full(F64.TYPE, 7.0, 4_000_000).sum() shouldBe 28_000_000.0 // 32 MB freed dirty: the cache's
            val z = NDArrays.zeros(F64.TYPE, 1_000_000L + 8192 * i) // shorter: a cut of a cached mapping
            z.maxAsDouble() shouldBe 0.0
            z.minAsDouble() shouldBe 0.0
            val f = NDArrays.full(F64.TYPE, i.toDouble(), 500_000L + i)
            if (i % 10 == 0) {
                keep.add(f)
            }
        }
        keep.forEachIndexed { j, f ->
            f.minAsDouble() shouldBe (10.0 * j)
            f.maxAsDouble() shouldBe (10.0 * j)
        }
    }

    test("where System.gc() does nothing (-XX:+DisableExplicitGC), dropped temporaries do not wait for a collection that never comes") {
        // 60 dropped 64 MiB arrays (never touched) pass the room of 12 several times
        fun run(vararg jvmArgs: String): Pair<Long, Long> = ChildJvm("drop-locals", "60", "64", jvmArgs = jvmArgs.toList()).use { c ->
            c.expectLine("COLLECTIONS ").toLong() to c.expectLine("MS ").toLong()
        }
        val (collected, _) = run()
        val (none, ms) = run("-XX:+DisableExplicitGC")
        println("dropped temporaries: $collected collections; with System.gc() disabled none in $ms ms")
        collected shouldBeGreaterThanOrEqualTo 3L
        none shouldBe 0
        // waiting for the cleaner took ~1 s at each pass of the room
        ms shouldBeLessThan 2000
    }

    test("a fresh mapping is in memory past its array's end, so joined freed mappings fault nothing in a larger array's first pass") {
        // 280,100 bytes: a mapping of 5 x 64 KiB, whose last 47,580 bytes the array never touches; the
        // cache joins freed neighbours, and those pages would fault in whatever took them
        val size = 280_100L
        val (pageSize, always, pages) = ChildJvm("local-pages", size.toString()).use { c ->
            Triple(c.expectLine("PAGE-SIZE ").toLong(), c.expectLine("THP-ALWAYS ").toBoolean(), c.expectLine("PAGES "))
        }
        val first = (size / pageSize).toInt() // the page with the array's last bytes, then the tail's
        pages.length.toLong() shouldBe 5 * 65536 / pageSize
        pages.substring(first) shouldBe "1".repeat(pages.length - first)
        if (!always) { // else a huge page around a touched page may bring the array's in too
            pages.substring(0, first) shouldBe "0".repeat(first) // the array's own pages: not written, so not in memory
        }
    }

    test("in-place arithmetic on every other element of a view past 2^30 elements: the loop's parts meet without a gap or an overlap") {
        // the every-other-element loop runs an int index in parts of 2^30 elements; 2 GiB of u8 is a view of 2^30 + 6
        // of them (in a child JVM: the 2 GiB would stay in this one's mapping cache for the tests after)
        val n = (1L shl 31) + 12
        val at = listOf(0L, (1L shl 31) - 4, (1L shl 31) - 2, 1L shl 31, (1L shl 31) + 2, n - 2)
        val values = ChildJvm("every-other", n.toString(), *at.map { it.toString() }.toTypedArray(), fullJit = true).use {
            it.expectLine("VALUES ")
        }
        // after += 3 on the view: an element of both parts would read 6, one of neither 0, and the odd ones stay 0
        values shouldBe at.joinToString(" ") { "3 0" }
    }

    test("10,000 temporaries (out-of-place ops, per-axis reductions) of a 1000x1000 f64 array leave the shm directory unchanged and RSS bounded") {
        val before = shmFiles()
        val a = SharedArrays.create(F64.TYPE, 1000, 1000).use { s -> s.fill(1.5); s.copy() }
        val row = a.view(Slice.index(0))
        val start = rssKiB()
        var peak = start
        var check = 0.0
        var expected = 0.0
        for (i in 0 until 10_000) {
            val k = i.toLong() % 1000
            val t = when (i % 8) {
                0 -> a.plus(a).also { expected += 3.0 }
                1 -> a.times(2.0).also { expected += 3.0 }
                2 -> a.minus(row)
                3 -> a.negate().also { expected -= 1.5 }
                4 -> a.sum(0).also { expected += 1500.0 }
                5 -> a.mean(1).also { expected += 1.5 }
                6 -> a.cumsum(0).also { expected += 1.5 * (i.toLong() / 1000 + 1) }
                else -> a.std(0)
            }
            check += t.getDouble(if (t.ndim() == 1) k else i.toLong())
            if (i % 100 == 0) {
                peak = maxOf(peak, rssKiB())
            }
        }
        check shouldBe expected
        shmFiles() shouldBe before
        println("10,000 temporaries of 8 MB: RSS at start ${start / 1024} MiB, peak ${peak / 1024} MiB")
        (peak - start) shouldBeLessThanKiB (3L shl 19) // 1.5 GiB: 512 MiB in use before a collection, 512 MiB cached
    }
})

private infix fun Long.shouldBeLessThanKiB(limit: Long) {
    if (this >= limit) throw AssertionError("RSS grew by $this KiB, limit $limit KiB")
}

package dev.sharedarrays

import dev.sharedarrays.testing.scratchDir
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import io.kotest.matchers.string.shouldStartWith
import io.kotest.property.Arb
import io.kotest.property.PropTestConfig
import io.kotest.property.RandomSource
import io.kotest.property.arbitrary.arbitrary
import io.kotest.property.checkAll
import java.io.File
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.zip.CRC32C

/**
 * Attach must turn every damaged or foreign file into an [InvalidSegmentException] naming the
 * path: never a crash, never an out-of-bounds read, never a half-attached array.
 */
class CorruptSegmentTest : FunSpec({
    val dir = scratchDir("corrupt")
    afterSpec { dir.deleteRecursively() }

    // offsets of the control block, as SegmentDescriptor documents them
    val magic = 0
    val version = 8
    val ready = 12
    val dtype = 16
    val ndim = 20
    val shape = 24
    val dataOffset = 88
    val dataLength = 96
    val crcCovered = 144

    /** Valid segments of a few shapes to start from. */
    val originals: List<ByteArray> = listOf(
        Triple(I16.TYPE as DType<*>, longArrayOf(3, 5), "a"),
        Triple(F64.TYPE, longArrayOf(1000), "b"),
        Triple(U8.TYPE, longArrayOf(2, 3, 4, 5), "c"),
    ).map { (t, s, n) ->
        val f = File(dir, "orig-$n")
        SharedArrays.createAny(t, s, CreateOptions.defaults().file(f.toPath())).use { a ->
            for (i in 0 until a.size()) a.setLong(i, i)
        }
        f.readBytes().also { f.delete() }
    }

    fun control(bytes: ByteArray): ByteBuffer =
        ByteBuffer.wrap(bytes, bytes.size - 4096, 4096).slice().order(ByteOrder.LITTLE_ENDIAN)

    /** Recomputes the checksum so that the field checks behind it are reached. */
    fun fixCrc(bytes: ByteArray) {
        val c = control(bytes)
        val covered = ByteArray(crcCovered)
        c.get(0, covered)
        covered.fill(0, ready, ready + 4)
        val crc = CRC32C().apply { update(covered) }
        c.putInt(crcCovered, crc.value.toInt())
    }

    data class Case(val kind: String, val bytes: ByteArray) {
        override fun toString() = "$kind (${bytes.size} bytes)"
    }

    val cases = arbitrary { rs ->
        val r = rs.random
        val orig = originals[r.nextInt(originals.size)]
        val b = orig.copyOf()
        fun ctrl() = control(b)
        when (r.nextInt(11)) {
            0 -> Case("truncated", orig.copyOf(r.nextInt(orig.size)))
            1 -> Case("extended", orig + ByteArray(1 + r.nextInt(3 * 4096)) { r.nextInt().toByte() })
            2 -> { ctrl().putLong(magic, r.nextLong()); Case("wrong magic", b) }
            3 -> { ctrl().putInt(version, listOf(0, 2, 99, -1, r.nextInt()).random(r).let { if (it == 1) 2 else it }); fixCrc(b); Case("wrong version", b) }
            4 -> { ctrl().putInt(ready, listOf(0, 1, r.nextInt()).random(r).let { if (it == 0x52454459) 0 else it }); Case("ready unset", b) }
            5 -> { // a shape/size field disagrees with the rest, checksum made consistent
                val c = ctrl()
                when (r.nextInt(6)) {
                    0 -> c.putLong(shape + 8 * r.nextInt(8), c.getLong(shape) + 1 + r.nextInt(1000))
                    1 -> c.putInt(ndim, listOf(0, 9, -3, c.getInt(ndim) + 1, c.getInt(ndim) - 1).random(r))
                    2 -> c.putInt(dtype, listOf(0, 11, -1, (c.getInt(dtype) % 10) + 1).random(r).let { if (it == c.getInt(dtype)) 0 else it })
                    3 -> c.putLong(dataLength, c.getLong(dataLength) + 1 + r.nextInt(1 shl 20))
                    4 -> c.putLong(dataOffset, listOf(0L, 8192L, -4096L, Long.MAX_VALUE).random(r))
                    else -> c.putLong(shape, listOf(0L, -1L, Long.MAX_VALUE, 1L shl 62).random(r))
                }
                fixCrc(b)
                Case("shape/size mismatch", b)
            }
            6 -> { // random bytes in the checked part of the control block
                val c = ctrl()
                val n = 1 + r.nextInt(8)
                repeat(n) {
                    val off = 8 + r.nextInt(crcCovered + 4 - 8)
                    if (off in ready until ready + 4) return@repeat
                    c.put(off, (c.get(off) + 1 + r.nextInt(255)).toByte())
                }
                c.put(crcCovered, (c.get(crcCovered) + 1).toByte()) // at least the checksum differs
                Case("random bytes in control block", b)
            }
            7 -> { // a byte of the .npy header changed (dict, padding, magic or length)
                val off = r.nextInt(4096)
                b[off] = (b[off] + 1 + r.nextInt(255)).toByte()
                Case("header byte changed", b)
            }
            8 -> Case("random bytes", ByteArray(r.nextInt(5) * 4096 + listOf(0, r.nextInt(4096)).random(r)) { r.nextInt().toByte() })
            9 -> { // a plain .npy file as numpy writes it: no control block
                val header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1024,), }".padEnd(117) + "\n"
                val npy = byteArrayOf(0x93.toByte()) + "NUMPY".toByteArray() + byteArrayOf(1, 0, 118, 0) + header.toByteArray()
                Case("foreign .npy", npy + ByteArray(8192 + r.nextInt(3) * 4096 - npy.size))
            }
            else -> { // the whole control block random
                val c = ctrl()
                val noise = ByteArray(4096).also { r.nextBytes(it) }
                c.put(0, noise)
                Case("random control block", b)
            }
        }
    }

    test("1200 corrupted or foreign files: each attach is a clear InvalidSegmentException") {
        val seen = HashMap<String, Int>()
        checkAll(PropTestConfig(seed = 20261122L, iterations = 1200), cases) { case ->
            val f = File(dir, "case")
            f.writeBytes(case.bytes)
            withClue(case.toString()) {
                val e = shouldThrow<InvalidSegmentException> { SharedArrays.attach("file://${f.absolutePath}") }
                e.message shouldStartWith "${f.absolutePath} is not a valid shared-arrays segment: "
            }
            seen.merge(case.kind, 1, Int::plus)
            f.delete()
        }
        seen.keys.size shouldBe 11
        println("corruption cases by kind: $seen")
    }

    test("the corruption of every checked field is named in the message") {
        val f = File(dir, "named")
        fun attachMessage(b: ByteArray): String {
            f.writeBytes(b)
            return shouldThrow<InvalidSegmentException> { SharedArrays.attach("file://${f.absolutePath}") }.message!!
        }
        val o = originals[0]
        attachMessage(o.copyOf(100)) shouldContain "file is 100 bytes, smaller than the smallest segment (12288 bytes)"
        attachMessage(o.copyOf().also { control(it).putLong(magic, 7) }) shouldContain "magic 0x7"
        attachMessage(o.copyOf().also { control(it).putInt(version, 2); fixCrc(it) }) shouldContain "format version 2, this library reads version 1"
        attachMessage(o.copyOf().also { control(it).putInt(ready, 0) }) shouldContain "segment is not ready"
        attachMessage(o.copyOf().also { control(it).putInt(ndim, 1) }) shouldContain "checksum mismatch"
        attachMessage(o.copyOf().also { control(it).putLong(shape, 4); fixCrc(it) }) shouldContain
            "data length 30 does not match shape [4, 5] of I16 (40 bytes)"
        attachMessage(o.copyOf().also { it[20] = 'X'.code.toByte() }) shouldContain ".npy header does not match"
        f.delete()
    }

    test("a valid copy still attaches, so the cases above fail for their corruption alone") {
        for ((k, o) in originals.withIndex()) {
            val f = File(dir, "valid-$k")
            f.writeBytes(o)
            SharedArrays.attach("file://${f.absolutePath}").use { a ->
                val last = a.size() - 1
                a.getLong(last) shouldBe if (a.dtype() == U8.TYPE) last % 256 else last
            }
            f.delete()
        }
    }
})

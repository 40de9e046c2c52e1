package dev.sharedarrays.testing

import dev.sharedarrays.Backend
import dev.sharedarrays.Bool
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.internal.kernel.Kernels
import dev.sharedarrays.internal.kernel.Simd
import java.lang.foreign.ValueLayout.JAVA_BYTE
import java.nio.ByteBuffer
import java.nio.ByteOrder
import kotlin.random.Random

/**
 * In-place arithmetic (add, sub, mul, and divide for floats; scalar or array operand) of every
 * numeric element type, by the SIMD loops and by the scalar ones, on rows of every length around
 * the SIMD loops' passes (for long rows with a scalar operand 8 written-out vectors, then single
 * vectors, then the scalar rest) and starting 0-2 elements into their array: the whole array,
 * the elements before and after the row included, must agree byte for byte. Command for child
 * JVMs (run with other vector widths):
 *  - `arith-lanes`: print `LANES <doubles in a vector, 0 without the Vector API>` and
 *    `MISMATCHES <count> <first>`
 */
object ArithmeticLaneCheck {
    private val ANONYMOUS = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    /** Doubles in a preferred vector, or 0 if the SIMD loops are off (no jdk.incubator.vector). */
    fun lanes(): Int {
        val on = Simd.running()
        return if (on) jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED.length() else 0
    }

    /** Short row lengths: each side of one, two and several vectors (of 16 to 64 bytes) and of 8 of them, and odd ones. */
    private val SHORT = listOf(1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 64 * 5 + 7)

    /**
     * The short lengths, and for the types of 4 and 8 bytes (the only ones with SIMD arithmetic)
     * each side of the row length at which the written-out loops start.
     */
    private fun lengths(size: Int): List<Int> {
        val from = (Kernels.BLOCKS_FROM / size).toInt()
        return if (size < 4) SHORT else SHORT + listOf(from - 1, from, from + 63)
    }

    /** What differs between the SIMD and the scalar loops, one line each. */
    fun mismatches(): List<String> {
        val rnd = Random(22)
        val out = ArrayList<String>()
        for (t in DType.all().filter { it != Bool.TYPE }) {
            val size = t.itemSize().toLong()
            val float = t.isFloatingPoint()
            val ops = listOf("add", "sub", "mul") + if (float) listOf("divide") else emptyList()
            for (n in lengths(t.itemSize())) {
                for (start in 0..2) {
                    val total = n + start + 2L
                    val bytes = ByteArray((total * size).toInt())
                    val operand = ByteArray((n * size).toInt())
                    fill(rnd, t, bytes)
                    fill(rnd, t, operand)
                    val a = SharedArrays.createAny(t, longArrayOf(total), ANONYMOUS)
                    val b = SharedArrays.createAny(t, longArrayOf(n.toLong()), ANONYMOUS)
                    try {
                        b.data().asByteBuffer().put(operand)
                        val row = a.slice(0, start.toLong(), start.toLong() + n, 1)
                        for (op in ops) {
                            // long rows only with a scalar operand: the loops with an array operand are the same at any length
                            for (scalar in if (n > SHORT.last()) listOf(true) else listOf(true, false)) {
                                val got = (0..1).map { simd ->
                                    val before = Simd.use(simd == 1)
                                    try {
                                        a.data().asByteBuffer().put(bytes)
                                        if (scalar) scalarOp(row, op, float) else arrayOp(row, b, op)
                                        a.data().toArray(JAVA_BYTE)
                                    } finally {
                                        Simd.use(before)
                                    }
                                }
                                if (!got[0].contentEquals(got[1])) {
                                    val at = got[0].indices.first { got[0][it] != got[1][it] } / size
                                    out += "$t $op ${if (scalar) "scalar" else "array"} n=$n start=$start: element $at differs"
                                }
                            }
                        }
                    } finally {
                        a.close()
                        b.close()
                    }
                }
            }
        }
        return out
    }

    /** Random elements: finite floats (so that results compare bit for bit), any bits for integers. */
    private fun fill(rnd: Random, t: DType<*>, into: ByteArray) {
        val buf = ByteBuffer.wrap(into).order(ByteOrder.nativeOrder())
        if (!t.isFloatingPoint()) {
            rnd.nextBytes(into)
        } else if (t.itemSize() == 8) {
            val d = buf.asDoubleBuffer()
            while (d.hasRemaining()) d.put((rnd.nextDouble() - 0.5) * 1e3)
        } else {
            val f = buf.asFloatBuffer()
            while (f.hasRemaining()) f.put(((rnd.nextDouble() - 0.5) * 1e3).toFloat())
        }
    }

    private fun scalarOp(a: SharedNDArray<*>, op: String, float: Boolean) {
        if (float) {
            when (op) {
                "add" -> a.add(2.5)
                "sub" -> a.sub(2.5)
                "mul" -> a.mul(2.5)
                else -> a.divide(2.5)
            }
        } else {
            when (op) {
                "add" -> a.add(3L)
                "sub" -> a.sub(3L)
                else -> a.mul(3L)
            }
        }
    }

    @Suppress("UNCHECKED_CAST")
    private fun <T : DType<T>> arrayOp(a: SharedNDArray<*>, b: SharedNDArray<*>, op: String) {
        val x = a as SharedNDArray<T>
        val y = b as SharedNDArray<T>
        when (op) {
            "add" -> x.add(y)
            "sub" -> x.sub(y)
            "mul" -> x.mul(y)
            else -> x.divide(y)
        }
    }

    fun run(args: Array<String>): Boolean = laneCommand(args, "arith-lanes", ::lanes, ::mismatches)
}

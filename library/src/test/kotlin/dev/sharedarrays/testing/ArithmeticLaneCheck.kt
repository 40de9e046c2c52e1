package dev.sharedarrays.testing

import dev.sharedarrays.Backend
import dev.sharedarrays.Bool
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.DType
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.internal.kernel.Kernels
import java.lang.foreign.ValueLayout.JAVA_BYTE
import kotlin.random.Random

/**
 * In-place arithmetic (add, sub, mul, and divide for floats; scalar or array operand) of every
 * numeric element type, by the SIMD loops and by the scalar ones, on rows of every length around
 * the SIMD loops' passes (a block of written-out vectors, then single vectors, then the scalar
 * rest) and starting 0-2 elements into their array: the whole array, the elements before and
 * after the row included, must agree byte for byte. Command for child JVMs (run with other
 * vector widths):
 *  - `arith-lanes`: print `LANES <doubles in a vector, 0 without the Vector API>` and
 *    `MISMATCHES <count> <first>`
 */
object ArithmeticLaneCheck {
    private val ANONYMOUS = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    /** Doubles in a preferred vector, or 0 if the SIMD loops are off (no jdk.incubator.vector). */
    fun lanes(): Int {
        val before = Kernels.useVector(true)
        val on = Kernels.useVector(before)
        return if (on) jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED.length() else 0
    }

    /** Row lengths: each side of one and two passes of 8 vectors at 64 bytes a vector (the widest), and odd ones. */
    private val LENGTHS = listOf(1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 64 * 5 + 7)

    /** What differs between the SIMD and the scalar loops, one line each. */
    fun mismatches(): List<String> {
        val rnd = Random(22)
        val out = ArrayList<String>()
        for (t in DType.all().filter { it != Bool.TYPE }) {
            val size = t.itemSize().toLong()
            val float = t.isFloatingPoint()
            val ops = listOf("add", "sub", "mul") + if (float) listOf("divide") else emptyList()
            for (n in LENGTHS) {
                for (start in 0..2) {
                    val total = n + start + 2L
                    val bytes = ByteArray((total * size).toInt())
                    val operand = ByteArray((n * size).toInt())
                    fill(rnd, t, bytes)
                    fill(rnd, t, operand)
                    for (op in ops) {
                        for (scalar in listOf(true, false)) {
                            val got = (0..1).map { simd ->
                                val before = Kernels.useVector(simd == 1)
                                try {
                                    apply(t, bytes, operand, start.toLong(), n.toLong(), op, scalar)
                                } finally {
                                    Kernels.useVector(before)
                                }
                            }
                            if (!got[0].contentEquals(got[1])) {
                                val at = got[0].indices.first { got[0][it] != got[1][it] } / size
                                out += "$t $op ${if (scalar) "scalar" else "array"} n=$n start=$start: element $at differs"
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /** Random elements: finite floats (so that results compare bit for bit), any bits for integers. */
    private fun fill(rnd: Random, t: DType<*>, into: ByteArray) {
        if (!t.isFloatingPoint()) {
            rnd.nextBytes(into)
            return
        }
        SharedArrays.createAny(t, longArrayOf(into.size / t.itemSize().toLong()), ANONYMOUS).use {
            for (i in 0 until it.size()) {
                it.setDouble(i, (rnd.nextDouble() - 0.5) * 1e3)
            }
            it.data().asByteBuffer().get(into)
        }
    }

    /** The array's bytes after `op` on its elements start until start + n. */
    private fun apply(t: DType<*>, bytes: ByteArray, operand: ByteArray, start: Long, n: Long, op: String, scalar: Boolean): ByteArray {
        val size = t.itemSize().toLong()
        val a = SharedArrays.createAny(t, longArrayOf(bytes.size / size), ANONYMOUS)
        val b = SharedArrays.createAny(t, longArrayOf(n), ANONYMOUS)
        try {
            a.data().asByteBuffer().put(bytes)
            b.data().asByteBuffer().put(operand)
            val row = a.slice(0, start, start + n, 1)
            if (scalar) {
                scalarOp(row, op, t.isFloatingPoint())
            } else {
                arrayOp(row, b, op)
            }
            return a.data().toArray(JAVA_BYTE)
        } finally {
            a.close()
            b.close()
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

    fun run(args: Array<String>): Boolean {
        if (args[0] != "arith-lanes") {
            return false
        }
        println("LANES ${lanes()}")
        val m = mismatches()
        println("MISMATCHES ${m.size} ${m.firstOrNull() ?: "-"}")
        return true
    }
}

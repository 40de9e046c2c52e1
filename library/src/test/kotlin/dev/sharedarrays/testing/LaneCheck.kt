package dev.sharedarrays.testing

import dev.sharedarrays.Bool
import dev.sharedarrays.DType
import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.internal.kernel.BitDeposit
import dev.sharedarrays.internal.kernel.Simd
import java.lang.foreign.ValueLayout.JAVA_BYTE
import jdk.incubator.vector.DoubleVector
import kotlin.random.Random

/**
 * Every comparison (6 operators, array or scalar operand) of every element type, by the SIMD
 * loops and by the scalar ones, on rows long enough for the SIMD loops (which pack blocks of 32
 * elements at 256 bits, write out the vectors of 64 at 512 and loop over them for narrower
 * vectors): the two must agree byte for byte. Command for child JVMs (run with other vector widths):
 *  - `compare-lanes`: print `BIT_DEPOSIT <BitDeposit.FAST>`, `LANES <doubles in a vector, 0 without
 *    the Vector API>` and `MISMATCHES <count> <first>`
 */
object LaneCheck {
    private val CMPS = listOf("gt", "lt", "ge", "le", "eq", "ne")
    private val ANONYMOUS = CreateOptions.defaults().backend(Backend.ANONYMOUS)

    /** Doubles in a preferred vector, or 0 if the SIMD loops are off (no jdk.incubator.vector). */
    fun lanes(): Int {
        val on = Simd.running()
        return if (on) DoubleVector.SPECIES_PREFERRED.length() else 0
    }

    /** What differs between the SIMD and the scalar loops, one line each. */
    fun mismatches(): List<String> {
        val rnd = Random(21)
        // bytes that make extremes, sign bits, NaNs and zeros at every element width
        val pool = byteArrayOf(0x00, 0x01, 0x7f, 0x80.toByte(), 0xff.toByte(), 0x3f, 0x40)
        val out = ArrayList<String>()
        for (t in DType.all()) {
            val n = 64L * 5 + 7
            val a = SharedArrays.createAny(t, longArrayOf(n), ANONYMOUS)
            val b = SharedArrays.createAny(t, longArrayOf(n), ANONYMOUS)
            try {
                val size = t.itemSize().toLong()
                for (i in 0 until n) {
                    val same = rnd.nextInt(3) == 0
                    for (k in 0 until size) {
                        val x = if (t == Bool.TYPE) rnd.nextInt(2).toByte() else pool[rnd.nextInt(pool.size)]
                        a.data().set(JAVA_BYTE, i * size + k, x)
                        b.data().set(JAVA_BYTE, i * size + k, if (same) x else pool[rnd.nextInt(pool.size)])
                    }
                }
                val dv = a.getDouble(7)
                val lv = a.getLong(7)
                for (c in CMPS) {
                    for (operand in listOf("array", "double", "long")) {
                        val got = (0..1).map { simd ->
                            val before = Simd.use(simd == 1)
                            try {
                                val r = when (operand) {
                                    "array" -> compareAny(c, a, b)
                                    "double" -> compare(c, a, dv)
                                    else -> compare(c, a, lv)
                                }
                                r.use { it.data().toArray(JAVA_BYTE) }
                            } finally {
                                Simd.use(before)
                            }
                        }
                        if (!got[0].contentEquals(got[1])) {
                            val at = got[0].indices.first { got[0][it] != got[1][it] }
                            out += "$t $c $operand: element $at scalar ${got[0][at]} simd ${got[1][at]}"
                        }
                    }
                }
            } finally {
                a.close()
                b.close()
            }
        }
        return out
    }

    @Suppress("UNCHECKED_CAST")
    private fun <T : DType<T>> compareAny(c: String, a: SharedNDArray<*>, b: SharedNDArray<*>): SharedNDArray<Bool> =
        compare(c, a as SharedNDArray<T>, b as SharedNDArray<T>)

    fun run(args: Array<String>): Boolean {
        if (args[0] == "compare-lanes") {
            println("BIT_DEPOSIT ${BitDeposit.FAST}") // which loop the 8- and 4-byte comparisons took at 256 bits
        }
        return laneCommand(args, "compare-lanes", ::lanes, ::mismatches)
    }
}

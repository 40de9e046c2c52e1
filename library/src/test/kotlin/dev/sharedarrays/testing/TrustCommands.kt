package dev.sharedarrays.testing

import dev.sharedarrays.Backend
import dev.sharedarrays.CreateOptions
import dev.sharedarrays.F64
import dev.sharedarrays.I64
import dev.sharedarrays.InvalidSegmentException
import dev.sharedarrays.SegmentNotFoundException
import dev.sharedarrays.SegmentTruncatedException
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray

/**
 * Child commands for bad files and truncation:
 *  - `attach-ops <handle>`: attach and run sum and `+=` on whatever it gets; print `REFUSED <class> <message>`
 *     if attach throws, else `RAN <sum>`
 *  - `truncation-ops <handle>`: attach the I64 array, warm every operation up (C2 compiles the element
 *     loops), print `READY`; then on stdin `round` runs each operation of [ops] once and prints
 *     `RESULT op=OK|<exception class> ...`; `close` closes the array and prints `CLOSED` or `CLOSE <class>`
 *  - `attach-loop <handle> <warmup> <n>`: attach, read and close warmup times, print `WARM`, wait for a line
 *     on stdin, then loop until the next line and at least n times; print `OUTCOMES <outcome>=<count> ...` (OK or the documented exception), or
 *     `UNEXPECTED <class> <message>` and stop at the first other throwable
 *  - `default-file <verb> [handle]`: `create` a default-directory file array, or `attach` the handle;
 *     print `OK` or `ERROR <class> <message>`
 */
object TrustCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "attach-ops" -> {
                val a = try {
                    SharedArrays.attach(args[1])
                } catch (e: Exception) {
                    println("REFUSED ${e.javaClass.simpleName} ${e.message}")
                    return true
                }
                a.use {
                    val f = it.`as`(F64.TYPE)
                    f.add(1.0)
                    println("RAN ${f.sum()}")
                }
            }
            "truncation-ops" -> truncationOps(args[1])
            "attach-loop" -> attachLoop(dev.sharedarrays.ArrayHandle.parse(args[1]), args[2].toInt(), args[3].toInt())
            "default-file" -> {
                try {
                    val a = if (args[1] == "create") {
                        SharedArrays.create(F64.TYPE, longArrayOf(8), CreateOptions.defaults().backend(Backend.FILE))
                    } else {
                        SharedArrays.attach(args[2])
                    }
                    a.close()
                    println("OK")
                } catch (e: Exception) {
                    println("ERROR ${e.javaClass.simpleName} ${e.message}")
                }
            }
            else -> return false
        }
        System.out.flush()
        return true
    }

    private fun attachLoop(handle: dev.sharedarrays.ArrayHandle, warmup: Int, n: Int) {
        fun once(): String = try {
            SharedArrays.attach(handle, F64.TYPE).use { b ->
                b.getDouble(0) + b.getDouble(b.size() - 1)
                b.toString()
            }
            "OK"
        } catch (e: SegmentTruncatedException) {
            if (!e.message!!.contains("only the memfd backend is immune")) throw e
            e.javaClass.simpleName
        } catch (e: SegmentNotFoundException) {
            e.javaClass.simpleName
        } catch (e: InvalidSegmentException) {
            e.javaClass.simpleName
        }
        repeat(warmup) { once() }
        println("WARM")
        System.out.flush()
        val stdin = System.`in`.bufferedReader()
        stdin.readLine()
        val stop = java.util.concurrent.atomic.AtomicBoolean()
        Thread.ofPlatform().daemon().start { stdin.readLine(); stop.set(true) }
        val outcomes = java.util.TreeMap<String, Int>()
        try {
            var done = 0
            while (!stop.get() || done < n) {
                outcomes.merge(once(), 1, Int::plus)
                done++
            }
        } catch (t: Throwable) {
            t.printStackTrace()
            println("UNEXPECTED ${t.javaClass.name} ${t.message}")
            return
        }
        println("OUTCOMES " + outcomes.entries.joinToString(" ") { "${it.key}=${it.value}" })
    }

    /** Every kind of access: element loops, scalar and SIMD kernels, copies, atomics, locks, repr. */
    private fun ops(a: SharedNDArray<I64>, y: SharedNDArray<I64>): List<Pair<String, () -> Any>> {
        val n = a.size()
        return listOf(
            "getLong" to { var s = 0L; for (i in 0 until n) s += a.getLong(i); s },
            "setLong" to { for (i in 0 until n) a.setLong(i, i); 0 },
            "getDouble" to { var s = 0.0; for (i in 0 until n) s += a.getDouble(i); s },
            "sum" to { a.sum() },
            "addScalar" to { a.add(1L) },
            "fill" to { a.fill(2L) },
            "addArray" to { a.add(y) },
            "mulArray" to { y.mul(a) },
            "toLongArray" to { a.toLongArray() },
            "copyFrom" to { a.copyFrom(LongArray(n.toInt()) { it.toLong() }) },
            "max" to { a.maxAsLong() },
            "getAndAdd" to { a.getAndAdd(n - 1, 1) },
            "lockWrite" to { a.lockWrite().close() },
            "toString" to { a.toString() },
            "sort" to { a.sort() },
        )
    }

    private fun truncationOps(handle: String) {
        val a = SharedArrays.attach(dev.sharedarrays.ArrayHandle.parse(handle), I64.TYPE)
        val y = SharedArrays.create(I64.TYPE, longArrayOf(a.size()), CreateOptions.defaults().backend(Backend.MEMFD))
        val ops = ops(a, y)
        repeat(3000) { ops.forEach { (_, op) -> op() } } // hot: C2 compiles and inlines the loops
        println("READY")
        System.out.flush()
        while (true) {
            when (readlnOrNull() ?: break) {
                "round" -> println("RESULT " + ops.joinToString(" ") { (name, op) ->
                    name + "=" + try {
                        op()
                        "OK"
                    } catch (t: Throwable) {
                        t.javaClass.simpleName
                    }
                })
                "close" -> println(try {
                    a.close()
                    "CLOSED"
                } catch (t: Throwable) {
                    "CLOSE ${t.javaClass.simpleName} ${t.message}"
                })
                "exit" -> break
            }
            System.out.flush()
        }
        y.close()
    }
}

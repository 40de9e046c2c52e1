package dev.sharedarrays.samples

import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.dsl.attach
import java.lang.foreign.ValueLayout
import kotlin.system.exitProcess

/**
 * The main demo: one JVM creates a large f64 array in shared memory, worker JVMs attach it by
 * its handle string (no copy), each sums and rewrites its band, and the parent sees the writes.
 *
 *     bin/demo [--mib 512] [--workers 2]
 */
fun main(args: Array<String>) {
    if (args.firstOrNull() == "--worker") {
        worker(args[1], args[2].toInt(), args[3].toInt())
        return
    }
    var mib = 512L
    var workers = 2
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--mib" -> mib = args[++i].toLong()
            "--workers" -> workers = args[++i].toInt()
            else -> {
                System.err.println("usage: bin/demo [--mib N] [--workers K]")
                exitProcess(2)
            }
        }
        i++
    }
    val n = mib * 1024 * 1024 / 8
    val t0 = System.nanoTime()
    SharedArrays.create(F64.TYPE, n).use { a ->
        val createMs = (System.nanoTime() - t0) / 1e6
        val data = a.data()
        for (k in 0 until n) data.setAtIndex(ValueLayout.JAVA_DOUBLE, k, k.toDouble())
        println("created ${a.handle()}  (${a.backend().id()}, $mib MiB, ${"%.1f".format(createMs)} ms)")
        println("numpy can open it too: numpy.load('${a.path().orElse(null)}', mmap_mode='r+')")

        val java = ProcessHandle.current().info().command().orElse("java")
        val procs = (0 until workers).map { w ->
            ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.sharedarrays.samples.HandoffDemoKt", "--worker", a.handle().toString(), w.toString(), workers.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start()
        }
        println()
        println("%-7s %14s %22s %22s %8s".format("worker", "attach (µs)", "band sum", "expected", "ok"))
        var allOk = true
        procs.forEachIndexed { w, p ->
            val out = p.inputStream.bufferedReader().readText().trim()
            val code = p.waitFor()
            val (from, to) = band(n, w, workers)
            val expected = (from + to - 1).toDouble() * (to - from) / 2
            val parts = out.split(" ")
            val ok = code == 0 && parts.size == 2 && parts[1].toDouble() == expected
            allOk = allOk && ok
            val seen = parts.getOrNull(1)?.toDoubleOrNull()?.let { "%.1f".format(it) } ?: out
            println("%-7d %14s %22s %22.1f %8s".format(w, parts.getOrElse(0) { "-" }, seen, expected, ok))
        }
        // every worker doubled its band in place: the parent sees it without any copy
        var doubled = true
        for (k in longArrayOf(0, n / 2, n - 1)) doubled = doubled && a.getDouble(k) == 2.0 * k
        println()
        println("parent sees the workers' writes: $doubled")
        if (!allOk || !doubled) exitProcess(1)
    }
}

private fun band(n: Long, w: Int, workers: Int): Pair<Long, Long> = n * w / workers to n * (w + 1) / workers

private fun worker(handle: String, w: Int, workers: Int) {
    val t0 = System.nanoTime()
    attach<F64>(handle).use { a ->
        val attachUs = (System.nanoTime() - t0) / 1000
        val (from, to) = band(a.size(), w, workers)
        val data = a.data()
        var sum = 0.0
        for (k in from until to) {
            val v = data.getAtIndex(ValueLayout.JAVA_DOUBLE, k)
            sum += v
            data.setAtIndex(ValueLayout.JAVA_DOUBLE, k, 2 * v)
        }
        println("$attachUs $sum")
    }
}

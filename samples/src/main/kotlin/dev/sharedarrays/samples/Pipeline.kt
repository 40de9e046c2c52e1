package dev.sharedarrays.samples

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.F64
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.dsl.WorkerProcesses
import dev.sharedarrays.dsl.attach
import dev.sharedarrays.dsl.get
import dev.sharedarrays.dsl.phase
import dev.sharedarrays.dsl.phasesOf
import dev.sharedarrays.dsl.plusAssign
import dev.sharedarrays.dsl.set
import dev.sharedarrays.dsl.sharedArrays
import dev.sharedarrays.dsl.timesAssign
import java.io.BufferedOutputStream
import java.io.ObjectInputStream
import java.io.ObjectOutputStream
import java.lang.foreign.ValueLayout
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.math.abs
import kotlin.system.exitProcess
import kotlinx.coroutines.runBlocking

/**
 * The main demo (`bin/demo`). The parent creates a large f64 array in shared memory and starts
 * worker JVMs, handing them the array by its handle. Phase 1: each worker fills its own band
 * with its element indices and transforms it (x * 0.5 + 1). All meet at a cross-process
 * barrier. Phase 2: each worker reduces its neighbour's band, written by another process. The
 * parent checks and prints the results, then times handing the same data to fresh JVMs through
 * shared memory and through Java serialization over a pipe.
 *
 *     bin/demo [--mib 1024] [--workers 2]
 */
fun main(args: Array<String>) {
    when (args.firstOrNull()) {
        "--worker" -> worker(ArrayHandle.parse(args[1]), ArrayHandle.parse(args[2]), ArrayHandle.parse(args[3]), args[4].toInt())
        "--receiver" -> receiver()
        else -> parent(args)
    }
}

private const val MAIN = "dev.sharedarrays.samples.PipelineKt"
private const val RESULT_COLUMNS = 6 // sum, min, max, first attach ms, next attach µs, phase-1 ms

private fun bandOf(n: Long, workers: Int, w: Int): LongRange = (n * w / workers) until (n * (w + 1) / workers)

private fun parent(args: Array<String>) {
    var mib = 1024L
    var workers = 2
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--mib" -> mib = args[++i].toLong()
            "--workers" -> workers = args[++i].toInt()
            else -> {
                System.err.println("usage: bin/demo [pipeline] [--mib N (default 1024)] [--workers K (default 2)]")
                exitProcess(2)
            }
        }
        i++
    }
    require(mib >= 1 && workers >= 1) { "--mib and --workers must be at least 1" }
    val n = mib * 1024 * 1024 / 8
    sharedArrays {
        var t = System.nanoTime()
        val a = create(F64.TYPE, longArrayOf(n))
        val results = f64(workers, RESULT_COLUMNS)
        val barrier = barrier(workers)
        println("created $mib MiB f64 array ${a.handle()} in ${ms(t)} ms; starting $workers worker JVMs")
        t = System.nanoTime()
        val procs = launchWorkers(workers, MAIN, args = { w ->
            listOf("--worker", a.handle().toString(), barrier.handle().toString(), results.handle().toString(), "$w")
        }, javaOptions = listOf("-Xmx128m"))
        runBlocking { procs.join() }
        println("workers done in ${ms(t)} ms (JVM start-up included)")
        println()
        println("worker  reduced band                        sum            min            max  first attach (ms)  next attach (µs)  phase 1 (ms)")
        var ok = true
        for (w in 0 until workers) {
            val nb = bandOf(n, workers, (w + 1) % workers)
            // the band holds i * 0.5 + 1 for its indices i
            val expectedSum = 0.5 * (nb.first + nb.last).toDouble() * nb.count() / 2 + nb.count()
            val sum = results[w, 0]
            val good = abs(sum - expectedSum) <= 1e-9 * expectedSum &&
                results[w, 1] == nb.first * 0.5 + 1 && results[w, 2] == nb.last * 0.5 + 1
            ok = ok && good
            println("%6d  %-26s %14.6e %14.1f %14.1f %18.1f %17.1f %13.1f%s".format(w, "[%,d, %,d)".format(nb.first, nb.last + 1),
                sum, results[w, 1], results[w, 2], results[w, 3], results[w, 4], results[w, 5], if (good) "" else "  WRONG"))
        }
        println(if (ok) "every band was written by one process and read correctly by another" else "MISMATCH")
        println()
        compareHandOff(a, workers)
        if (!ok) exitProcess(1)
    }
}

/** Phase 1: fill and transform this worker's band; barrier; phase 2: reduce the neighbour's band. */
private fun worker(arrayHandle: ArrayHandle, barrierHandle: ArrayHandle, resultsHandle: ArrayHandle, w: Int) = runBlocking {
    sharedArrays {
        val t0 = System.nanoTime()
        // unlocked: the bands are disjoint and the barrier orders the phases, so the array's lock is not needed
        val a = attach<F64>(arrayHandle).unlocked()
        a.getDouble(0)
        val firstAttach = ms(t0) // a fresh JVM links its FFM calls on first use
        val t2 = System.nanoTime()
        val results = attach<F64>(resultsHandle)
        results[w, 0]
        val nextAttachMicros = (System.nanoTime() - t2) / 1e3
        val phases = phasesOf(attachBarrier(barrierHandle), w)
        val n = a.size()
        val mine = bandOf(n, phases.workers, w)
        val t1 = System.nanoTime()
        phases.phase {
            val d = a.data()
            for (k in mine) d.setAtIndex(ValueLayout.JAVA_DOUBLE, k, k.toDouble())
            val band = a.slice(0, mine.first, mine.last + 1, 1)
            band *= 0.5
            band += 1.0
            results[w, 5] = ms(t1)
        }
        val other = bandOf(n, phases.workers, (w + 1) % phases.workers)
        val band = a.slice(0, other.first, other.last + 1, 1)
        results[w, 0] = band.sum()
        results[w, 1] = band.minAsDouble()
        results[w, 2] = band.maxAsDouble()
        results[w, 3] = firstAttach
        results[w, 4] = nextAttachMicros
        println("band ${mine.first}..${mine.last} written, band ${other.first}..${other.last} reduced")
    }
}

private fun ms(since: Long): Double = Math.round((System.nanoTime() - since) / 1e5) / 10.0

private const val CHUNK = 2 * 1024 * 1024 // doubles per serialized chunk (16 MiB)

/**
 * Starts fresh receiver JVMs and waits until they are ready (JVM start-up and first-use
 * linking are not timed), then hands each its band: as a handle over shared memory, or as
 * serialized double[] chunks over its stdin pipe. Each receiver times, from reading the
 * hand-off line, until it holds its band and until it has summed it; the slowest counts.
 */
private fun compareHandOff(a: SharedNDArray<F64>, workers: Int) {
    val n = a.size()
    val bandMib = (n / workers * 8) shr 20
    val rows = listOf("shm", "ser").associateWith { mode ->
        val events = LinkedBlockingQueue<String>()
        WorkerProcesses.start(workers, MAIN, args = { listOf("--receiver") },
            javaOptions = listOf("-Xmx${2 * bandMib + 256}m"),
            output = { w, line -> if (line.startsWith("ERROR")) println("[receiver $w] $line") else events.put(line) },
        ).use { receivers ->
            repeat(workers) {
                val line = events.poll(300, TimeUnit.SECONDS) ?: error("no READY from the receivers")
                check(line == "READY") { "expected READY, a receiver said: $line" }
            }
            val senders = (0 until workers).map { w ->
                Thread.ofPlatform().start { send(a, bandOf(n, workers, w), mode, receivers.stdin(w)) }
            }
            val last = HashMap<String, Long>()
            repeat(2 * workers) {
                val line = events.poll(300, TimeUnit.SECONDS) ?: error("receivers stopped answering")
                val kind = line.substringBefore(' ')
                check(kind == "HELD" || kind == "SUMMED") { "a receiver said: $line" }
                last.merge(kind, line.substringAfter(' ').toLong(), ::maxOf)
            }
            val held = last.getValue("HELD")
            val summed = last.getValue("SUMMED")
            senders.forEach { it.join() }
            runBlocking { receivers.join() }
            held / 1e6 to summed / 1e6
        }
    }
    val (shmHeld, shmSummed) = rows.getValue("shm")
    val (serHeld, serSummed) = rows.getValue("ser")
    println("handing ${n * 8 shr 20} MiB to $workers fresh JVMs ($bandMib MiB each)   shared memory   Java serialization over a pipe")
    println("%-54s %13.2f ms %16.1f ms".format("until every worker holds its band", shmHeld, serHeld))
    println("%-54s %13.2f ms %16.1f ms".format("until every worker has also summed it", shmSummed, serSummed))
    println("%-54s %16s %19s".format("copies of the data", "0 (one mapping)", "$workers heaps + chunks"))
    println("speed-up until the data is held: %.0fx".format(serHeld / shmHeld))
}

/** Writes the handle and band to a receiver, or the band's values serialized. */
private fun send(a: SharedNDArray<F64>, band: LongRange, mode: String, out: java.io.OutputStream) {
    out.write("$mode ${a.handle()} ${band.first} ${band.last + 1}\n".toByteArray())
    out.flush()
    if (mode == "ser") {
        ObjectOutputStream(BufferedOutputStream(out, 1 shl 16)).use { oos ->
            var k = band.first
            while (k <= band.last) {
                val len = minOf(CHUNK.toLong(), band.last + 1 - k).toInt()
                oos.writeUnshared(a.slice(0, k, k + len, 1).toDoubleArray())
                oos.reset() // else both streams keep every chunk reachable
                k += len
            }
            oos.flush()
        }
    }
}

/** Receives a band as described in [compareHandOff]: prints READY, HELD, SUMMED. */
private fun receiver() {
    // warm up both paths (FFM linking, class loading) so that only the hand-off itself is timed
    dev.sharedarrays.SharedArrays.create(F64.TYPE, 8L).use { t -> attach<F64>(t.handle()).use { it.sum() } }
    val bytes = java.io.ByteArrayOutputStream().also { b -> ObjectOutputStream(b).use { it.writeUnshared(DoubleArray(8)) } }
    ObjectInputStream(java.io.ByteArrayInputStream(bytes.toByteArray())).use { it.readUnshared() }
    println("READY")
    System.out.flush()
    val input = System.`in`
    val header = generateSequence { input.read().takeIf { it >= 0 && it != '\n'.code } }
        .map { it.toChar() }.joinToString("").split(" ")
    val lo = header[2].toLong()
    val hi = header[3].toLong()
    val t0 = System.nanoTime()
    fun since() = System.nanoTime() - t0
    if (header[0] == "shm") {
        attach<F64>(header[1]).use { a ->
            val band = a.slice(0, lo, hi, 1)
            band.getDouble(0)
            println("HELD ${since()}")
            System.out.flush()
            band.sum()
            println("SUMMED ${since()}")
        }
    } else {
        val values = DoubleArray((hi - lo).toInt())
        ObjectInputStream(input).use { ois ->
            var k = 0
            while (k < values.size) {
                val chunk = ois.readUnshared() as DoubleArray
                System.arraycopy(chunk, 0, values, k, chunk.size)
                k += chunk.size
            }
        }
        println("HELD ${since()}")
        System.out.flush()
        values.sum()
        println("SUMMED ${since()}")
    }
}

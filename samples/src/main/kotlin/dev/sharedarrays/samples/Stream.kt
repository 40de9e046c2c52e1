package dev.sharedarrays.samples

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.F64
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.dsl.acquire
import dev.sharedarrays.dsl.divAssign
import dev.sharedarrays.dsl.iterator
import dev.sharedarrays.dsl.max
import dev.sharedarrays.dsl.min
import dev.sharedarrays.dsl.minusAssign
import dev.sharedarrays.dsl.plusAssign
import dev.sharedarrays.dsl.receive
import dev.sharedarrays.dsl.send
import dev.sharedarrays.dsl.sharedArrays
import java.io.BufferedInputStream
import java.io.BufferedOutputStream
import java.io.DataInputStream
import java.io.DataOutputStream
import java.io.ObjectInputStream
import java.io.ObjectOutputStream
import java.net.InetAddress
import java.net.ServerSocket
import java.net.Socket
import kotlin.math.sin
import kotlin.system.exitProcess
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.runBlocking

/**
 * `bin/demo stream`: a stream of frames between JVMs. A producer JVM fills frames in the slots
 * of an [ArrayPool] and sends them through an [ArrayQueue]; two worker JVMs receive them,
 * compute each frame's mean, min and max, normalise it in place ((x - mean) / (max - min)) and
 * send the statistics back through
 * a second queue to this JVM. No frame is copied: each pool slot moves from process to process.
 * Then the same stream with the frames serialized (ObjectOutputStream over loopback sockets), as
 * a JVM pipeline without shared memory would do it.
 *
 *     bin/demo stream [--frames 400] [--size 1024]      (frames of size x size f64)
 */
fun main(args: Array<String>) {
    when (args.firstOrNull()) {
        "--producer" -> runBlocking { producer(args[1], args[2], args[3].toInt()) }
        "--normaliser" -> runBlocking { normaliser(args[1], args[2], args[3]) }
        "--serial-worker" -> serialWorker(args[1].toInt())
        else -> streamParent(args)
    }
}

private const val STREAM_MAIN = "dev.sharedarrays.samples.StreamKt"
private const val STATS = 4 // frame id, mean, min, max

private fun streamParent(args: Array<String>) {
    var frames = 400
    var size = 1024
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--frames" -> frames = args[++i].toInt()
            "--size" -> size = args[++i].toInt()
            else -> {
                System.err.println("usage: bin/demo stream [--frames N (default 400)] [--size S (default 1024: S x S f64 frames)]")
                exitProcess(2)
            }
        }
        i++
    }
    require(frames >= 1 && size >= 2) { "--frames must be at least 1 and --size at least 2" }
    val frameBytes = size.toLong() * size * 8
    println("streaming $frames frames of $size x $size f64 (${"%.1f".format(frameBytes / 1048576.0)} MiB each): " +
        "1 producer JVM -> 2 worker JVMs -> this JVM")
    val shm = sharedArrays {
        // a trailer row carries the frame id, which normalising does not touch
        val framePool = pool(F64.TYPE, 8, size + 1, size)
        val frameQueue = queue(8)
        val statsPool = pool(F64.TYPE, 32, STATS)
        val statsQueue = queue(32)
        val workers = launchWorkers(3, STREAM_MAIN, args = { w ->
            if (w == 0) listOf("--producer", framePool.handle().toString(), frameQueue.handle().toString(), "$frames")
            else listOf("--normaliser", frameQueue.handle().toString(), statsPool.handle().toString(), statsQueue.handle().toString())
        }, javaOptions = listOf("-Xmx256m"))
        runBlocking {
            val first = statsQueue.receive(F64.TYPE, 120.seconds)!! // start the clock at the first result: JVM start-up excluded
            val t0 = System.nanoTime()
            val seen = BooleanArray(frames)
            var sumOfMeans = 0.0
            fun take(s: SharedNDArray<F64>) {
                val id = s.getDouble(0).toInt()
                check(!seen[id]) { "frame $id came back twice" }
                seen[id] = true
                sumOfMeans += s.getDouble(1)
                s.close()
            }
            take(first)
            repeat(frames - 1) { take(statsQueue.receive(F64.TYPE, 120.seconds)!!) }
            val seconds = (System.nanoTime() - t0) / 1e9
            check(seen.all { it }) { "frames missing" }
            workers.join(60.seconds).forEach { check(it == 0) { "a worker failed (exit $it)" } }
            Result(frames - 1, seconds, sumOfMeans / frames)
        }
    }
    val serial = serialStream(frames, size)
    val mbs = { r: Result -> r.frames * frameBytes / r.seconds / 1e9 }
    println()
    println("%-52s %10s %10s %12s".format("", "frames/s", "GB/s", "mean check"))
    println("%-52s %10.0f %10.2f %12.6f".format("shared memory (pool slots through two ArrayQueues)", shm.frames / shm.seconds, mbs(shm), shm.meanOfMeans))
    println("%-52s %10.0f %10.2f %12.6f".format("Java serialization (ObjectOutputStream, sockets)", serial.frames / serial.seconds, mbs(serial), serial.meanOfMeans))
    println()
    println("speed-up: %.1fx (frames/s after the first result, JVM start-up excluded; the same frames and statistics both ways)".format(
        (shm.frames / shm.seconds) / (serial.frames / serial.seconds)))
}

private class Result(val frames: Int, val seconds: Double, val meanOfMeans: Double)

/** The pattern every frame starts from, row-major; frame f adds f to it, so that every frame has other statistics. */
private fun pattern(rows: Int, cols: Int): DoubleArray =
    DoubleArray(rows * cols) { sin(0.01 * (it / cols)) * sin(0.02 * (it % cols)) * 100.0 }

private suspend fun producer(pool: String, queue: String, frames: Int) = sharedArrays {
    val framePool = attachPool<F64>(ArrayHandle.parse(pool))
    val frameQueue = attachQueue(ArrayHandle.parse(queue))
    val shape = framePool.slotShape()
    val rows = (shape[0] - 1).toInt()
    val cols = shape[1].toInt()
    val base = pattern(rows, cols)
    for (f in 0 until frames) {
        val frame = framePool.acquire(60.seconds)
        val pixels = frame.slice(0, 0, rows.toLong(), 1)
        pixels.copyFrom(base)
        pixels += f.toDouble()
        frame.setDouble(longArrayOf(rows.toLong(), 0), f.toDouble())
        frameQueue.send(frame, 60.seconds)
    }
    frameQueue.end()
}

private suspend fun normaliser(frameQueueHandle: String, statsPoolHandle: String, statsQueueHandle: String) = sharedArrays {
    val frameQueue = attachQueue(ArrayHandle.parse(frameQueueHandle))
    val statsPool = attachPool<F64>(ArrayHandle.parse(statsPoolHandle))
    val statsQueue = attachQueue(ArrayHandle.parse(statsQueueHandle))
    for (any in frameQueue) {
        val frame = any.`as`(F64.TYPE)
        val rows = frame.shape()[0] - 1
        val pixels = frame.slice(0, 0, rows, 1)
        val id = frame.getDouble(longArrayOf(rows, 0))
        val stats = doubleArrayOf(pixels.mean(), pixels.min(), pixels.max())
        pixels -= stats[0]
        pixels /= stats[2] - stats[1]
        val out = statsPool.acquire(60.seconds)
        out.setDouble(0, id)
        for (k in 0 until 3) out.setDouble(k + 1L, stats[k])
        frame.close() // the slot goes back to the producer's pool
        statsQueue.send(out, 60.seconds)
    }
}

/** mean, min, max of a frame's rows. */
private fun statistics(frame: Array<DoubleArray>): DoubleArray {
    var sum = 0.0
    var min = Double.POSITIVE_INFINITY
    var max = Double.NEGATIVE_INFINITY
    for (row in frame) {
        for (v in row) {
            sum += v
            if (v < min) min = v
            if (v > max) max = v
        }
    }
    return doubleArrayOf(sum / (frame.size * frame[0].size), min, max)
}

/** The same stream through Java serialization: this JVM produces and collects, 2 worker JVMs over loopback sockets. */
private fun serialStream(frames: Int, size: Int): Result {
    val server = ServerSocket(0, 2, InetAddress.getLoopbackAddress())
    val java = ProcessHandle.current().info().command().orElse("java")
    val procs = List(2) {
        ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
            STREAM_MAIN, "--serial-worker", server.localPort.toString()).inheritIO().start()
    }
    try {
        val sockets = List(2) { server.accept() }
        val outs = sockets.map { ObjectOutputStream(BufferedOutputStream(it.getOutputStream(), 1 shl 16)) }
        val ins = sockets.map { DataInputStream(BufferedInputStream(it.getInputStream())) }
        var sumOfMeans = 0.0
        val base = pattern(size, size)
        val frame = Array(size) { DoubleArray(size) }
        var t0 = 0L
        // one frame in flight per worker at a time, round robin: the workers compute while this JVM serializes the next
        for (f in 0 until frames) {
            if (f == 2) t0 = System.nanoTime() // the first result of each worker: warm
            val w = f % 2
            if (f >= 2) sumOfMeans += readStats(ins[w])
            for (r in 0 until size) for (c in 0 until size) frame[r][c] = base[r * size + c] + f
            outs[w].writeInt(f)
            outs[w].writeObject(frame)
            outs[w].flush()
            outs[w].reset()
        }
        for (f in maxOf(0, frames - 2) until frames) sumOfMeans += readStats(ins[f % 2])
        if (frames < 3) t0 = System.nanoTime()
        val seconds = (System.nanoTime() - t0) / 1e9
        outs.forEach { it.writeInt(-1); it.flush() }
        procs.forEach { it.waitFor() }
        sockets.forEach { it.close() }
        return Result(maxOf(frames - 2, 1), seconds, sumOfMeans / frames)
    } finally {
        procs.forEach { if (it.isAlive) it.destroyForcibly() }
        server.close()
    }
}

private fun readStats(input: DataInputStream): Double {
    input.readInt()
    val mean = input.readDouble()
    repeat(2) { input.readDouble() }
    return mean
}

private fun serialWorker(port: Int) {
    Socket(InetAddress.getLoopbackAddress(), port).use { s ->
        val input = ObjectInputStream(BufferedInputStream(s.getInputStream(), 1 shl 16))
        val out = DataOutputStream(BufferedOutputStream(s.getOutputStream()))
        while (true) {
            val id = input.readInt()
            if (id < 0) break
            @Suppress("UNCHECKED_CAST")
            val frame = input.readObject() as Array<DoubleArray>
            val stats = statistics(frame)
            for (row in frame) for (c in row.indices) row[c] = (row[c] - stats[0]) / (stats[2] - stats[1])
            out.writeInt(id)
            for (v in stats) out.writeDouble(v)
            out.flush()
        }
    }
}

package dev.sharedarrays.samples

import dev.sharedarrays.ArrayPool
import dev.sharedarrays.ArrayQueue
import dev.sharedarrays.F64
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.dsl.plusAssign
import java.io.File
import java.time.Duration
import kotlin.math.abs
import kotlin.math.sin
import kotlin.system.exitProcess

/**
 * `bin/demo mixed`: a stream of frames from this JVM to two Python processes and back. This JVM
 * fills frames in the slots of an [ArrayPool] and sends them through an [ArrayQueue]; two Python
 * processes (samples/python/mixed_consumer.py, the `sharedarrays` package) compute each frame's
 * mean, min and max with numpy on the shared memory itself, normalise it in place and send the same
 * slot back through a second queue with the statistics in its trailer row; this JVM checks the
 * statistics and a normalised pixel of every frame, then gives the slot back to the pool. No frame
 * is copied. Beside it the same stream in Python alone, the torch.multiprocessing way
 * (samples/python/torch_stream.py: share_memory_() tensors through torch queues, or multiprocessing
 * queues pickling numpy arrays when torch is missing).
 *
 *     bin/demo mixed [--frames 400] [--size 1024]      (frames of size x size f64)
 *
 * bin/demo passes `--python` (the interpreter of python/ensure-env) and `--compare-python` (the one
 * of python/ensure-torch, or the same one when torch could not be installed).
 */
fun main(args: Array<String>) {
    var frames = 400
    var size = 1024
    var python = "python3"
    var comparePython: String? = null
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--frames" -> frames = args[++i].toInt()
            "--size" -> size = args[++i].toInt()
            "--python" -> python = args[++i]
            "--compare-python" -> comparePython = args[++i]
            else -> {
                System.err.println("usage: bin/demo mixed [--frames N (default 400)] [--size S (default 1024: S x S f64 frames)]")
                exitProcess(2)
            }
        }
        i++
    }
    require(frames >= 2 && size >= 2) { "--frames must be at least 2 and --size at least 2, but were $frames and $size" }
    val frameBytes = size.toLong() * size * 8
    println("streaming $frames frames of $size x $size f64 (${"%.1f".format(frameBytes / 1048576.0)} MiB each): " +
        "this JVM -> 2 Python processes (numpy, in place) -> this JVM")
    val shm = mixedStream(frames, size, python)
    val other = compareStream(frames, size, comparePython ?: python)
    val gbs = { r: MixedResult -> r.frames * frameBytes / r.seconds / 1e9 }
    println()
    println("%-62s %10s %10s %12s".format("", "frames/s", "GB/s", "mean check"))
    println("%-62s %10.0f %10.2f %12.6f".format("shared-arrays: JVM -> pool slot -> 2 Python (numpy) -> JVM", shm.frames / shm.seconds, gbs(shm), shm.meanOfMeans))
    if (other != null) {
        println("%-62s %10.0f %10.2f %12.6f".format(other.label, other.frames / other.seconds, gbs(other), other.meanOfMeans))
        println()
        println("speed-up: %.1fx (frames/s after the first result, process start-up excluded; the same frames and statistics both ways)".format(
            (shm.frames / shm.seconds) / (other.frames / other.seconds)))
        check("%.6f".format(shm.meanOfMeans) == "%.6f".format(other.meanOfMeans)) {
            "the mean checks differ: ${shm.meanOfMeans} here, ${other.meanOfMeans} in Python alone"
        }
    }
}

private class MixedResult(val label: String, val frames: Int, val seconds: Double, val meanOfMeans: Double)

private val MIXED_TIMEOUT: Duration = Duration.ofSeconds(120)
private const val MIXED_SLOTS = 8

/** The pattern every frame starts from, row-major (torch_stream.py's `pattern`); frame f adds f to it. */
private fun mixedPattern(rows: Int, cols: Int): DoubleArray =
    DoubleArray(rows * cols) { sin(0.01 * (it / cols)) * sin(0.02 * (it % cols)) * 100.0 }

private fun mixedStream(frames: Int, size: Int, python: String): MixedResult {
    val base = mixedPattern(size, size)
    val baseMean = base.sum() / base.size
    val baseMin = base.min()
    val baseMax = base.max()
    // a trailer row carries the frame id (element 0), and the statistics on the way back (1..3)
    ArrayPool.create(F64.TYPE, MIXED_SLOTS, size + 1L, size.toLong()).use { pool ->
        ArrayQueue.create(MIXED_SLOTS).use { frameQueue ->
            ArrayQueue.create(MIXED_SLOTS).use { resultQueue ->
                val consumers = List(2) {
                    ProcessBuilder(python, File("samples/python/mixed_consumer.py").path,
                        frameQueue.handle().toString(), resultQueue.handle().toString()).inheritIO().start()
                }
                try {
                    val producer = Thread.ofPlatform().name("producer").start {
                        for (f in 0 until frames) {
                            val frame = pool.acquire(MIXED_TIMEOUT)
                            val pixels = frame.slice(0, 0, size.toLong(), 1)
                            pixels.copyFrom(base)
                            pixels += f.toDouble()
                            frame.setDouble(longArrayOf(size.toLong(), 0), f.toDouble())
                            frameQueue.send(frame, MIXED_TIMEOUT)
                        }
                        frameQueue.end()
                    }
                    val seen = BooleanArray(frames)
                    var sumOfMeans = 0.0
                    var t0 = 0L
                    for (k in 0 until frames) {
                        val s: SharedNDArray<F64> = resultQueue.receive(F64.TYPE, MIXED_TIMEOUT)
                            ?: error("the result queue ended after $k of $frames frames")
                        if (k == 0) t0 = System.nanoTime() // the clock starts at the first result: Python start-up excluded
                        val trailer = size.toLong()
                        val id = s.getDouble(longArrayOf(trailer, 0)).toInt()
                        val mean = s.getDouble(longArrayOf(trailer, 1))
                        val min = s.getDouble(longArrayOf(trailer, 2))
                        val max = s.getDouble(longArrayOf(trailer, 3))
                        check(id in 0 until frames && !seen[id]) { "frame $id came back twice or is not one of the $frames" }
                        seen[id] = true
                        check(abs(mean - (baseMean + id)) < 1e-6 && abs(min - (baseMin + id)) < 1e-9 && abs(max - (baseMax + id)) < 1e-9) {
                            "frame $id: Python computed mean=$mean min=$min max=$max, expected ${baseMean + id}, ${baseMin + id}, ${baseMax + id}"
                        }
                        val pixel = s.getDouble(longArrayOf(0, 1))
                        val expected = (base[1] + id - mean) / (max - min)
                        check(abs(pixel - expected) < 1e-12) { "frame $id: pixel (0, 1) is $pixel after normalising, expected $expected" }
                        sumOfMeans += mean
                        s.close() // the slot goes back to the pool, for the producer's next frame
                    }
                    val seconds = (System.nanoTime() - t0) / 1e9
                    producer.join()
                    consumers.forEach { check(it.waitFor() == 0) { "a Python consumer failed (exit ${it.exitValue()})" } }
                    return MixedResult("", frames - 1, seconds, sumOfMeans / frames)
                } finally {
                    consumers.forEach { if (it.isAlive) it.destroyForcibly() }
                }
            }
        }
    }
}

/** samples/python/torch_stream.py's figures; null (and a line saying why) if it failed. */
private fun compareStream(frames: Int, size: Int, python: String): MixedResult? {
    val p = ProcessBuilder(python, File("samples/python/torch_stream.py").path, "--frames", "$frames", "--size", "$size")
        .redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val out = p.inputStream.bufferedReader().readText()
    if (p.waitFor() != 0) {
        println("the Python-only comparison failed (exit ${p.exitValue()}): $out")
        return null
    }
    val json = out.lines().last { it.startsWith("{") }
    fun field(key: String) = Regex("\"$key\": \"?([^,\"}]*)").find(json)?.groupValues?.get(1) ?: error("no $key in $json")
    val label = when (field("kind")) {
        "torch" -> "torch.multiprocessing: share_memory_() tensors, torch ${field("torch")}"
        else -> "multiprocessing queues pickling numpy arrays (no torch)"
    }
    return MixedResult(label, field("frames").toInt(), field("seconds").toDouble(), field("mean_check").toDouble())
}

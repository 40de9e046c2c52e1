package dev.sharedarrays.samples

import dev.sharedarrays.dsl.set
import dev.sharedarrays.dsl.sharedArrays
import java.io.File
import java.io.IOException
import kotlin.system.exitProcess

/**
 * numpy interop (`bin/demo numpy`): the JVM creates and fills an array, a Python script
 * (samples/python/numpy_interop.py) maps the same memory with numpy and changes it, and the
 * JVM prints what it sees: numpy's writes, with no copy in either direction.
 *
 *     bin/demo numpy [path of numpy_interop.py]
 */
fun main(args: Array<String>) {
    val script = File(args.firstOrNull() ?: "samples/python/numpy_interop.py")
    if (!script.isFile) {
        System.err.println("cannot find ${script.path}; run from the repository root or pass the script's path")
        exitProcess(2)
    }
    sharedArrays {
        val a = f64(3, 4)
        for (i in 0 until 3) for (j in 0 until 4) a[i, j] = i * 10.0 + j
        val path = a.path().orElseThrow { IllegalStateException("this sample needs a file-backed array (shm or file backend)") }
        println("JVM created and filled $path:\n$a\n")
        val status = try {
            ProcessBuilder("python3", script.path, path.toString()).inheritIO().start().waitFor()
        } catch (e: IOException) {
            System.err.println("cannot run python3 (${e.message}); install python3 with numpy")
            exitProcess(2)
        }
        if (status != 0) {
            System.err.println("python3 exited with status $status (is numpy installed? pip install numpy)")
            exitProcess(1)
        }
        println("\nJVM sees numpy's writes in the same memory:\n$a")
        println("sum ${a.sum()}, min ${a.minAsDouble()}, max ${a.maxAsDouble()}")
    }
}

// Column statistics of a 2-d float64 array that another process wrote, read in place from shared memory.
//
//   bin/script samples/scripts/column_stats.main.kts           numpy (python3) fills a fresh 100000 x 4 array
//                                                              through np.load(mmap_mode='r+'), then this
//                                                              script reads the very same memory
//   bin/script samples/scripts/column_stats.main.kts HANDLE    the 2-d F64 array of that handle (shm://...,
//                                                              memfd://..., file://...), e.g. one a running
//                                                              process made
//
// bin/script puts the library and the DSL on the class path; nothing is downloaded while the script runs.

import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.SharedNDArray
import dev.sharedarrays.dsl.*
import java.util.Locale

val numpyWriter = """
import sys
import numpy as np
a = np.load(sys.argv[1], mmap_mode='r+')    # maps the memory the JVM created: no copy
rng = np.random.default_rng(2024)
a[:] = rng.normal(loc=[0.0, 10.0, -5.0, 100.0], scale=[1.0, 2.0, 0.5, 10.0], size=a.shape)
a.flush()
print('numpy (pid %d) wrote a %s %s array' % (__import__('os').getpid(), a.shape, a.dtype))
for name, v in [('mean', a.mean(0)), ('std', a.std(0)), ('min', a.min(0)), ('max', a.max(0))]:
    print('numpy  %-7s' % name + ''.join('%14.6f' % x for x in v))
print('numpy  %-7s' % 'argmax' + ''.join('%14d' % x for x in a.argmax(0)))
"""

fun row(label: String, cells: List<String>) = println("kotlin " + label.padEnd(7) + cells.joinToString("") { it.padStart(14) })

fun fixed(v: DoubleArray) = v.map { String.format(Locale.ROOT, "%.6f", it) }

fun columnStats(a: SharedNDArray<F64>) {
    require(a.ndim == 2) { "column_stats needs a 2-d array, not shape ${a.shape.toList()}" }
    println("kotlin (pid ${ProcessHandle.current().pid()}) reads ${a.handle} in place; its first rows:")
    println(a[0 until 3, all])
    // numpy's a.mean(0) & co.: one value per column, each in a new process-local array (no file, nothing to close)
    val mean = a.mean(0)
    val std = a.std(0)
    row("mean", fixed(mean.toDoubleArray()))
    row("std", fixed(std.toDoubleArray()))
    row("min", fixed(a.min(0).toDoubleArray()))
    row("max", fixed(a.max(0).toDoubleArray()))
    row("argmax", a.argmax(0).toLongArray().map { it.toString() })
    // out of place with broadcasting, as in numpy: the last row in standard deviations from each column's mean
    println("z-scores of the last row:")
    println((a[a.shape[0].toInt() - 1, all] - mean) / std)
}

if (args.isNotEmpty()) {
    attach<F64>(args[0]).use { columnStats(it) }
} else {
    SharedArrays.create(F64.TYPE, 100_000, 4).use { a ->     // zero-filled; removed when closed
        val writer = ProcessBuilder("python3", "-c", numpyWriter, a.path().get().toString()).inheritIO().start()
        check(writer.waitFor() == 0) { "python3 (with numpy) failed to write the array: exit ${writer.exitValue()}" }
        columnStats(a)
    }
}

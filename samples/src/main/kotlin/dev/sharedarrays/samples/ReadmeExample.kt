package dev.sharedarrays.samples

import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.dsl.attach

/** The example of the README, kept here so that it compiles. */
fun main() {
    SharedArrays.create(F64.TYPE, 1000, 1000).use { a ->      // 8 MB in /dev/shm, zero-filled
        a.setDouble(0, 4.5)
        val handle = a.handle().toString()                   // "shm://sa-…?id=…": pass it to any process
        attach<F64>(handle).use { b ->                       // another process would do just this
            b.setDouble(1, b.getDouble(0) * 2)
        }
        println("${a.getDouble(1)} via $handle")            // 9.0: same memory, no copy
        println("numpy: numpy.load('${a.path().get()}', mmap_mode='r+')")
    }                                                        // the owner's close removes it
}

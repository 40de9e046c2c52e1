package dev.sharedarrays.testing

import dev.sharedarrays.F64
import dev.sharedarrays.SharedArrays

// Not in package dev.sharedarrays: on the class path beside the library's named module, a class of the
// module's package would not be found.
/** What dev.sharedarrays.DesktoplessImageTest runs in the image. */
object DesktoplessProbe {
    @JvmStatic
    fun main(args: Array<String>) {
        println(SharedArrays::class.java.module)
        SharedArrays.create(F64.TYPE, 1000L, 3L).use { a ->
            a.fill(2.0)
            SharedArrays.attach(a.handle()).use { b ->
                println("sum ${a.sum()} attached ${b.sum()}")
            }
            try {
                a.toPng()
                println("toPng: no error")
            } catch (e: UnsupportedOperationException) {
                println("toPng: UnsupportedOperationException: ${e.message}")
            }
        }
    }
}

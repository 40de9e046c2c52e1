package dev.sharedarrays.testing

import dev.sharedarrays.SharedArrays

/**
 * Child JVM commands for the tests with Python peers ([dev.sharedarrays.PythonPeerTest]):
 *  - `attach-until-line <handle>`: attach, print `ATTACHED <dtype> <shape>`, close at the first line on
 *     stdin (or its end), print `CLOSED`
 */
object PeerCommands {
    fun run(args: Array<String>): Boolean {
        when (args[0]) {
            "attach-until-line" -> {
                SharedArrays.attach(args[1]).use { a ->
                    println("ATTACHED ${a.dtype()} ${a.shape().contentToString()}")
                    System.out.flush()
                    readlnOrNull()
                }
                println("CLOSED")
            }
            else -> return false
        }
        return true
    }
}

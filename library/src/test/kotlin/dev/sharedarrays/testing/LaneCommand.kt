package dev.sharedarrays.testing

/**
 * The child command of a check of the SIMD loops against the scalar ones (run in child JVMs of
 * other vector widths): if `args` names `command`, prints `LANES <doubles in a vector, 0 without
 * the Vector API>` and `MISMATCHES <count> <first>` and returns true.
 */
fun laneCommand(args: Array<String>, command: String, lanes: () -> Int, mismatches: () -> List<String>): Boolean {
    if (args[0] != command) {
        return false
    }
    println("LANES ${lanes()}")
    val m = mismatches()
    println("MISMATCHES ${m.size} ${m.firstOrNull() ?: "-"}")
    return true
}

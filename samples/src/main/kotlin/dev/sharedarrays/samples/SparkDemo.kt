package dev.sharedarrays.samples

import dev.sharedarrays.ArrayHandle
import dev.sharedarrays.SharedArrays
import dev.sharedarrays.spark.readSharedArray
import dev.sharedarrays.spark.writeSharedArray
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.avg
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.functions.count
import org.apache.spark.sql.functions.max
import java.io.BufferedReader
import java.io.InputStreamReader
import kotlin.system.exitProcess

/**
 * Spark in this JVM over a numpy process's array (`bin/demo spark [--rows N] [--python PY]`): the
 * Python peer (samples/python/spark_peer.py) writes sensor readings into a shared array; Spark
 * `local[*]` reads it in place, groups by sensor and takes per-column statistics with Spark SQL,
 * and writes the per-sensor result back as a shared array, which the numpy process reads and
 * checks against its own computation. Prints the time of each step.
 */
fun main(args: Array<String>) {
    var rows = 2_000_000
    var python = "python3"
    var i = 0
    while (i < args.size) {
        when (args[i]) {
            "--rows" -> rows = args[++i].toInt()
            "--python" -> python = args[++i]
            else -> {
                System.err.println("usage: bin/demo spark [--rows N] [--python PYTHON]")
                exitProcess(2)
            }
        }
        i++
    }
    val name = "spark-demo-readings-${ProcessHandle.current().pid()}"
    val resultName = "spark-demo-result-${ProcessHandle.current().pid()}"
    val peer = ProcessBuilder(python, "samples/python/spark_peer.py", rows.toString(), name)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start()
    val fromPeer = BufferedReader(InputStreamReader(peer.inputStream))
    val toPeer = peer.outputStream.bufferedWriter()
    fun line(prefix: String): List<String> {
        val l = fromPeer.readLine() ?: error("the Python peer exited (${peer.waitFor()}) before $prefix")
        check(l.startsWith(prefix)) { "the Python peer said: $l" }
        return l.split(" ")
    }
    val times = mutableListOf<Pair<String, Double>>()
    fun <T> timed(what: String, block: () -> T): T {
        val t0 = System.nanoTime()
        val r = block()
        times += what to (System.nanoTime() - t0) / 1e6
        return r
    }
    try {
        val ready = line("READY")
        times += "numpy writes $rows x 8 f64 into a shared array" to ready[2].toDouble()
        val spark = timed("start Spark local[*] in this JVM") {
            SparkSession.builder().master("local[*]").appName("sharedarrays-demo").config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4").getOrCreate().also { it.sparkContext().setLogLevel("WARN") }
        }
        val readings = spark.readSharedArray(ready[1])
        readings.createOrReplaceTempView("readings")
        val stats = timed("per-column statistics (Spark SQL: mean, stddev, min, max of 7 columns)") {
            spark.sql("SELECT " + (1..7).joinToString(", ") { "avg(c$it), stddev(c$it), min(c$it), max(c$it)" } + " FROM readings").first()
        }
        val bySensor = timed("group by sensor: count, means of readings 1-3, max of reading 7") {
            readings.groupBy(col("c0")).agg(count("*").cast("double"), avg("c1"), avg("c2"), avg("c3"), max("c7")).orderBy("c0")
                .also { it.cache().count() }
        }
        timed("write the 16 rows back as a shared array") { bySensor.writeSharedArray(resultName) }
        val result = SharedArrays.inspect(ArrayHandle.parse("shm://$resultName"))
        toPeer.write("check ${result.handle()}\n")
        toPeer.flush()
        val checked = line("CHECKED")
        times += "numpy reads the result and checks it (max difference ${checked[1]})" to checked[2].toDouble()
        println("column 1: mean %.4f, stddev %.4f, min %.4f, max %.4f".format(stats.getDouble(0), stats.getDouble(1),
            stats.getDouble(2), stats.getDouble(3)))
        bySensor.show(4)
        println("%-90s %10s".format("step", "ms"))
        for ((what, ms) in times) println("%-90s %10.1f".format(what, ms))
        val ok = checked[1].toDouble() < 1e-9
        println(if (ok) "numpy agrees with Spark's result" else "numpy DISAGREES with Spark's result")
        spark.stop()
        if (!ok) exitProcess(1)
    } finally {
        toPeer.close()
        peer.waitFor()
        runCatching { SharedArrays.remove(ArrayHandle.parse("shm://$resultName"), true) }
    }
}

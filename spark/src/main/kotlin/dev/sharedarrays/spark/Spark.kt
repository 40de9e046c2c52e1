package dev.sharedarrays.spark

import org.apache.spark.sql.Dataset
import org.apache.spark.sql.Row
import org.apache.spark.sql.SparkSession

/**
 * The shared array [name] (or a handle) as a DataFrame: `spark.readSharedArray("grid")` is
 * `spark.read().format("sharedarrays").options(options).load(name)` (see [SharedArraysSource]).
 */
public fun SparkSession.readSharedArray(name: String, options: Map<String, String> = emptyMap()): Dataset<Row> =
    read().format("sharedarrays").options(options).load(name)

/**
 * Writes this DataFrame's rows into a new shared array [name], in their order: `df.writeSharedArray("result")`
 * (mode error-if-exists; [overwrite] replaces an existing array).
 */
public fun Dataset<Row>.writeSharedArray(name: String, options: Map<String, String> = emptyMap(), overwrite: Boolean = false) {
    write().format("sharedarrays").options(options).mode(if (overwrite) "overwrite" else "errorifexists").save(name)
}

/**
 * The queue `queue/`[name] as a stream of its messages' rows; [dtype] and [shape] are the messages' (a pool's
 * element type and slot shape): `spark.readSharedQueue("frames", "f8", 1024)`.
 */
public fun SparkSession.readSharedQueue(name: String, dtype: String, vararg shape: Long, options: Map<String, String> = emptyMap()): Dataset<Row> =
    readStream().format("sharedarrays").option("dtype", dtype).option("shape", shape.joinToString(","))
        .options(options).load("queue/$name")

package dev.sharedarrays.spark.internal;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * Messages of a micro-batch, held by the driver until the batch is committed: each one the
 * contiguous memory of an array on the driver's host ({@code handles[i]}, {@code byteOffsets[i]}),
 * read as rows of {@code columns}; {@code seqs[i]} is its number in the stream.
 */
public record MessageRange(String[] handles, long[] byteOffsets, long[] seqs, ArrayColumns columns, int[] read) implements InputPartition {
}

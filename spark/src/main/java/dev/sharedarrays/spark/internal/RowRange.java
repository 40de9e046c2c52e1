package dev.sharedarrays.spark.internal;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * A partition of an array read: rows {@code [start, stop)} of the array {@code handle} names,
 * to be read on {@code host} (where the array is) or, elsewhere, through the Flight bridge at
 * {@code flight}.
 *
 * @param handle  the array's handle with its id ("shm://name?id=..."): a same-named array on another host is not it
 * @param name    the array's name in its host's shm directory (what the bridge serves it as)
 * @param columns the array's geometry
 * @param start   first row
 * @param stop    one past the last row
 * @param read    the columns read, by position in {@link ArrayColumns#schema()} (0 is index)
 * @param host    where the array lives (the partition's preferred location)
 * @param flight  the bridge of that host ("grpc+tcp://host:8815"), or null
 * @param token   the bearer token for it, or null (then the client's default)
 * @param aggregates what Spark pushed to compute here (one row of partial results), or null to read the rows
 * @param keepMapped whether an executor may keep the array mapped after its tasks (its lifetime is OWNER: {@link Attached})
 */
public record RowRange(String handle, String name, ArrayColumns columns, long start, long stop, int[] read, String host, String flight,
                       String token, PushedAggregates aggregates, boolean keepMapped) implements InputPartition {
    @Override
    public String[] preferredLocations() {
        return host == null ? new String[0] : new String[] {host};
    }
}

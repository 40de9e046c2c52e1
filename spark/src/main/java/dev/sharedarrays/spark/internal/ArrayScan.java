package dev.sharedarrays.spark.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The scan of an array: columns pruned to those the query reads, and rows narrowed by the
 * query's bounds on {@code index} (Spark still applies every filter; the bounds only skip rows).
 * Partitions are row ranges of about {@link #PARTITION_BYTES}, at least {@code minPartitions}
 * of them, each preferring the array's host. An aggregation without GROUP BY may be pushed here
 * ({@link PushedAggregates}): each partition then returns one row of partial results.
 */
final class ArrayScan implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters, SupportsPushDownAggregates, Scan,
        Batch {
    /** A partition's size, about: large enough that a task's overhead is small against its reading. */
    static final long PARTITION_BYTES = 64L << 20;

    private final ArrayTable table;
    private final int minPartitions;
    private StructType read;
    private long from;
    private long to;
    private Filter[] pushed = new Filter[0];
    private PushedAggregates aggregates;

    ArrayScan(ArrayTable table, int minPartitions) {
        this.table = table;
        this.minPartitions = minPartitions;
        this.read = table.schema();
        this.from = 0;
        this.to = table.geometry().rows();
    }

    @Override
    public void pruneColumns(StructType required) {
        // every column but index can be left out; a query that reads none (count) still needs the rows
        read = required.fields().length == 0 ? new StructType(new StructField[] {table.schema().fields()[0]}) : required;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        List<Filter> used = new ArrayList<>();
        for (Filter f : filters) {
            if (narrow(f)) {
                used.add(f);
            }
        }
        pushed = used.toArray(new Filter[0]);
        return filters; // all are checked again after the scan: the bounds only skip rows
    }

    /** Narrows [from, to) by a bound on index; true if f was one. */
    private boolean narrow(Filter f) {
        String attr;
        Object v;
        if (f instanceof GreaterThan g) {
            attr = g.attribute();
            v = g.value();
        } else if (f instanceof GreaterThanOrEqual g) {
            attr = g.attribute();
            v = g.value();
        } else if (f instanceof LessThan l) {
            attr = l.attribute();
            v = l.value();
        } else if (f instanceof LessThanOrEqual l) {
            attr = l.attribute();
            v = l.value();
        } else if (f instanceof EqualTo e) {
            attr = e.attribute();
            v = e.value();
        } else {
            return false;
        }
        if (!ArrayColumns.INDEX.equals(attr) || !(v instanceof Number n) || v instanceof Double || v instanceof Float) {
            return false;
        }
        long x = n.longValue();
        long rows = table.geometry().rows();
        if (f instanceof GreaterThan) {
            from = Math.max(from, x == Long.MAX_VALUE ? rows : x + 1);
        } else if (f instanceof GreaterThanOrEqual) {
            from = Math.max(from, x);
        } else if (f instanceof LessThan) {
            to = Math.min(to, x);
        } else if (f instanceof LessThanOrEqual) {
            to = Math.min(to, x == Long.MAX_VALUE ? rows : x + 1);
        } else {
            from = Math.max(from, x);
            to = Math.min(to, x == Long.MAX_VALUE ? rows : x + 1);
        }
        from = Math.max(0, Math.min(from, rows));
        to = Math.max(from, Math.min(to, rows));
        return true;
    }

    @Override
    public Filter[] pushedFilters() {
        return pushed;
    }

    @Override
    public boolean pushAggregation(Aggregation aggregation) {
        aggregates = PushedAggregates.of(aggregation, table.geometry());
        return aggregates != null;
    }

    @Override
    public boolean supportCompletePushDown(Aggregation aggregation) {
        return false; // one row a partition: Spark merges them
    }

    @Override
    public Scan build() {
        return this;
    }

    @Override
    public StructType readSchema() {
        return aggregates != null ? aggregates.schema(table.geometry()) : read;
    }

    @Override
    public String description() {
        return "sharedarrays " + table.name() + " " + table.geometry() + " rows [" + from + ", " + to + ")";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        ArrayColumns cols = table.geometry();
        List<String> names = Arrays.asList(table.schema().fieldNames());
        int[] columns = Arrays.stream(read.fieldNames()).mapToInt(names::indexOf).toArray();
        long rows = to - from;
        if (rows == 0) {
            return new InputPartition[0];
        }
        long bytes = rows * cols.rowBytes();
        long parts = Math.min(rows, Math.max(minPartitions, (bytes + PARTITION_BYTES - 1) / PARTITION_BYTES));
        InputPartition[] out = new InputPartition[(int) parts];
        for (int p = 0; p < parts; p++) {
            long start = from + rows * p / parts;
            long stop = from + rows * (p + 1) / parts;
            out[p] = new RowRange(table.handle(), table.arrayName(), cols, start, stop, columns, table.host(), table.flight(), table.token(),
                    aggregates, table.keepMapped());
        }
        return out;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new RowReaderFactory();
    }
}

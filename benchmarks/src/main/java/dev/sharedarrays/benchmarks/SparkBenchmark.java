package dev.sharedarrays.benchmarks;

import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.F64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code bin/bench spark [--gib 1] [--rounds 5]}: one table, one query, three sources, in Spark
 * local[*] in this JVM. The data: a GiB of f64, 16 columns. The query: the sum of every column
 * (Spark SQL). The sources: the shared array (format "sharedarrays", read in place), the same rows
 * as Parquet written by Spark (read from disk, in the page cache after the first round), and
 * {@code spark.createDataFrame} of rows built from heap arrays. The values are pseudo-random
 * doubles (as measurements are: no encoding shrinks them). The query is an aggregation without
 * GROUP BY, which Spark pushes into the shared-array scan (each partition sums its rows where they
 * are) and not into Parquet's. Prints each source's first query (the shared array's maps its
 * pages; an executor keeps them mapped for the queries that follow), median and best query time and
 * throughput of the rounds after it, the ratio of ours to Parquet's, and how much this JVM's heap
 * (Spark's executor here) grew while a query read the shared array, against the array's size.
 */
public final class SparkBenchmark {
    private static final int COLUMNS = 16;

    private SparkBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        double gib = 1;
        int rounds = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--gib" -> gib = Double.parseDouble(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: bin/bench spark [--gib 1] [--rounds 5]");
            }
        }
        long bytes = (long) (gib * (1L << 30));
        long rows = bytes / (COLUMNS * 8L);
        String name = "bench-spark-" + ProcessHandle.current().pid();
        Path parquet = Path.of("target", "bench-spark-parquet-" + ProcessHandle.current().pid()).toAbsolutePath();
        SparkSession spark = SparkSession.builder().master("local[*]").appName("sharedarrays-bench").config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        Column[] sums = new Column[COLUMNS];
        for (int c = 0; c < COLUMNS; c++) {
            sums[c] = functions.sum("c" + c);
        }
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {rows, COLUMNS}, CreateOptions.defaults().name(name))) {
            MemorySegment m = a.data();
            long x = 0x9E3779B97F4A7C15L; // xorshift: values that Parquet's encodings cannot shrink, as measurements are
            for (long i = 0; i < rows * COLUMNS; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                m.setAtIndex(ValueLayout.JAVA_DOUBLE, i, (x >>> 11) * 0x1.0p-53);
            }
            System.out.printf(Locale.ROOT, "%,d rows x %d f64 columns (%.2f GiB); query: the sum of every column; %d rounds each; %s, %d cores%n",
                    rows, COLUMNS, bytes / (double) (1L << 30), rounds, Runtime.version(), Runtime.getRuntime().availableProcessors());
            Dataset<Row> ours = spark.read().format("sharedarrays").load(name);
            long t0 = System.nanoTime();
            ours.write().parquet(parquet.toString());
            double writeParquet = (System.nanoTime() - t0) / 1e9;
            Dataset<Row> fromParquet = spark.read().parquet(parquet.toString());

            List<String> table = new ArrayList<>();
            double oursMedian = row(table, "shared array (format \"sharedarrays\")", ours, sums, rounds, bytes);
            String heap = heap(ours, sums, bytes); // before the heap arrays of the third source exist
            double parquetMedian = row(table, "Parquet (Spark wrote it in " + String.format(Locale.ROOT, "%.1f s", writeParquet) + ")",
                    fromParquet, sums, rounds, bytes);
            // heap arrays: the columns on this JVM's heap (a static field: tasks in this JVM read them, none copies
            // them into its closure), each query's rows made from them by the partitions' tasks
            HeapColumns.columns = new double[COLUMNS][];
            for (int c = 0; c < COLUMNS; c++) {
                HeapColumns.columns[c] = a.view(dev.sharedarrays.Slice.all(), dev.sharedarrays.Slice.of(c, c + 1)).toDoubleArray();
            }
            StructType schema = new StructType(java.util.stream.IntStream.range(0, COLUMNS)
                    .mapToObj(c -> DataTypes.createStructField("c" + c, DataTypes.DoubleType, false)).toArray(StructField[]::new));
            int parts = spark.sparkContext().defaultParallelism() * 4;
            Dataset<Row> created = spark.createDataFrame(new org.apache.spark.api.java.JavaSparkContext(spark.sparkContext())
                    .parallelize(java.util.stream.IntStream.range(0, parts).boxed().toList(), parts)
                    .flatMap(new HeapColumns(parts)), schema);
            double createdMedian = row(table, "createDataFrame, rows from heap arrays",
                    created, sums, rounds, bytes);
            System.out.printf("%-46s %10s %12s %10s %8s%n", "source", "first (ms)", "median (ms)", "best (ms)", "GB/s");
            table.forEach(System.out::println);
            System.out.printf(Locale.ROOT, "shared array against Parquet: %.1fx the throughput; against createDataFrame: %.1fx%n",
                    parquetMedian / oursMedian, createdMedian / oursMedian);
            System.out.println(heap);
        } finally {
            spark.stop();
            if (Files.exists(parquet)) {
                try (Stream<Path> s = Files.walk(parquet)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** The heap-array source: rows of partition p made from the columns on this JVM's heap. */
    static final class HeapColumns implements org.apache.spark.api.java.function.FlatMapFunction<Integer, Row> {
        private static final long serialVersionUID = 1L;
        static volatile double[][] columns;
        private final int parts;

        HeapColumns(int parts) {
            this.parts = parts;
        }

        @Override
        public java.util.Iterator<Row> call(Integer p) {
            double[][] cols = columns;
            int n = cols[0].length;
            int from = (int) ((long) n * p / parts);
            int to = (int) ((long) n * (p + 1) / parts);
            return new java.util.Iterator<>() {
                private int r = from;

                @Override
                public boolean hasNext() {
                    return r < to;
                }

                @Override
                public Row next() {
                    Object[] v = new Object[cols.length];
                    for (int c = 0; c < cols.length; c++) {
                        v[c] = cols[c][r];
                    }
                    r++;
                    return RowFactory.create(v);
                }
            };
        }
    }

    /** Times the query rounds + 1 times (the first a warm-up), adds the row; returns the median in ms. */
    private static double row(List<String> table, String label, Dataset<Row> df, Column[] sums, int rounds, long bytes) {
        Column first = sums[0];
        Column[] rest = java.util.Arrays.copyOfRange(sums, 1, sums.length);
        long t0First = System.nanoTime();
        df.agg(first, rest).first();
        double firstMs = (System.nanoTime() - t0First) / 1e6;
        double[] ms = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            df.agg(first, rest).first();
            ms[r] = (System.nanoTime() - t0) / 1e6;
        }
        double median = Stats.median(ms);
        double best = java.util.Arrays.stream(ms).min().orElseThrow();
        table.add(String.format(Locale.ROOT, "%-46s %10.1f %12.1f %10.1f %8.2f", label, firstMs, median, best, bytes / median / 1e6));
        return median;
    }

    /** This JVM's heap (the executor's, in local mode) before, while and after queries read the array. */
    private static String heap(Dataset<Row> ours, Column[] sums, long bytes) {
        long before = heapAfterGc();
        long peak = 0;
        for (int r = 0; r < 3; r++) {
            ours.agg(sums[0], java.util.Arrays.copyOfRange(sums, 1, COLUMNS)).first();
            peak = Math.max(peak, usedHeap());
        }
        long after = heapAfterGc();
        return String.format(Locale.ROOT, "heap while the shared array was read: %.0f MiB before, at most %.0f MiB during, %.0f MiB after"
                + " (the array: %.0f MiB)", before / 1048576.0, peak / 1048576.0, after / 1048576.0, bytes / 1048576.0);
    }

    private static long usedHeap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long heapAfterGc() {
        System.gc();
        return usedHeap();
    }
}

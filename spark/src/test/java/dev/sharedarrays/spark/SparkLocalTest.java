package dev.sharedarrays.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.ArrayPool;
import dev.sharedarrays.ArrayQueue;
import dev.sharedarrays.CreateOptions;
import dev.sharedarrays.DType;
import dev.sharedarrays.F64;
import dev.sharedarrays.I32;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data source in Spark local[2], in this JVM: every element type read, columns pruned, index
 * bounds pushed down, memory read in place; writes in the DataFrame's order, with clear errors and
 * nothing left behind; a queue through a streaming query into another queue, the end of the first
 * ending the query.
 */
class SparkLocalTest {
    private static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder().master("local[2]").appName("sharedarrays-test").config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    private static String unique(String base) {
        return base + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    }

    private static List<String> leftovers(String prefix) throws Exception {
        try (var files = Files.list(SharedArrays.shmDirectory())) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix) || n.startsWith("sa-part-")).toList();
        }
    }

    @Test
    void everyElementTypeReadsAsItsSparkTypeWithExactValues() {
        for (DType<?> t : DType.all()) {
            String name = unique("sp-types");
            try (SharedNDArray<?> a = SharedArrays.createAny(t, new long[] {50, 3}, CreateOptions.defaults().name(name))) {
                for (long i = 0; i < a.size(); i++) {
                    a.setLong(i, t.isBool() ? i % 2 : t.isUnsigned() ? -1 - i : i - 70);
                }
                Dataset<Row> df = spark.read().format("sharedarrays").load(name);
                assertEquals(List.of("index", "c0", "c1", "c2"), List.of(df.columns()), t.name());
                List<Row> rows = df.orderBy("index").collectAsList();
                assertEquals(50, rows.size(), t.name());
                for (int r = 0; r < 50; r++) {
                    assertEquals(r, rows.get(r).getLong(0));
                    for (int c = 0; c < 3; c++) {
                        long i = r * 3L + c;
                        Object v = rows.get(r).get(c + 1);
                        String what = t.name() + " row " + r + " column " + c + ": " + v;
                        if (t.isBool()) {
                            assertEquals(i % 2 == 1, v, what);
                        } else if (t.isFloatingPoint()) {
                            assertEquals((double) (i - 70), ((Number) v).doubleValue(), what);
                        } else if (t.isUnsigned()) {
                            // stored -1 - i: the unsigned value 2^(8 * itemSize) - 1 - i, widened
                            BigDecimal want = new BigDecimal(java.math.BigInteger.ONE.shiftLeft(8 * t.itemSize()).subtract(
                                    java.math.BigInteger.valueOf(1 + i)));
                            assertEquals(0, want.compareTo(new BigDecimal(v.toString())), what);
                        } else {
                            assertEquals(i - 70, ((Number) v).longValue(), what);
                        }
                    }
                }
            }
        }
    }

    @Test
    void sqlOverAnArrayReadsItsMemoryInPlacePrunedAndNarrowedByIndex() {
        String name = unique("sp-sql");
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {100_000, 4}, CreateOptions.defaults().name(name))) {
            for (long i = 0; i < a.size(); i++) {
                a.setDouble(i, i % 4 + (i / 4) * 0.001);
            }
            Dataset<Row> df = spark.read().format("sharedarrays").option("partitions", "4").load(name);
            assertEquals("struct<index:bigint,c0:double,c1:double,c2:double,c3:double>", df.schema().simpleString());
            Row stats = df.agg(functions.sum("c1"), functions.max("c3"), functions.count("*")).first();
            double want = 0;
            for (long r = 0; r < 100_000; r++) {
                want += 1 + r * 0.001;
            }
            assertEquals(want, stats.getDouble(0), 1e-6);
            assertEquals(3 + 99_999 * 0.001, stats.getDouble(1), 1e-9);
            assertEquals(100_000L, stats.getLong(2));
            // pruned and narrowed: the plan reads c2 of rows [10, 20) only
            Dataset<Row> some = df.where("index >= 10 AND index < 20").select("c2");
            String plan = some.queryExecution().executedPlan().toString();
            assertTrue(plan.contains("rows [10, 20)") && plan.contains("c2") && !plan.contains("c3"), plan);
            assertEquals(10, some.count());
            // in place: a change of the memory shows in the next query of the same DataFrame
            a.setDouble(new long[] {15, 2}, 1e6);
            assertEquals(1e6, some.agg(functions.max("c2")).first().getDouble(0));
        }
    }

    @Test
    void aggregatesWithoutGroupByAreComputedInThePartitionsAndEqualSparksOwn() {
        for (DType<?> t : List.of(F64.TYPE, dev.sharedarrays.F32.TYPE, I32.TYPE, dev.sharedarrays.U16.TYPE, dev.sharedarrays.I8.TYPE)) {
            String name = unique("sp-agg");
            try (SharedNDArray<?> a = SharedArrays.createAny(t, new long[] {10_001, 3}, CreateOptions.defaults().name(name))) {
                for (long i = 0; i < a.size(); i++) {
                    a.setLong(i, (i * 7919) % 201 - 100);
                }
                if (t.isFloatingPoint()) {
                    a.setDouble(new long[] {5000, 2}, Double.NaN); // Spark: NaN is the largest
                }
                Dataset<Row> df = spark.read().format("sharedarrays").option("partitions", "3").load(name);
                List<String> queries = new ArrayList<>(List.of("min(c0), max(c1), count(*), count(c2), max(c2), min(c2)"));
                if (t.isFloatingPoint()) {
                    queries.set(0, queries.get(0) + ", sum(c1)");
                    queries.add("sum(c0), count(*), sum(c2), sum(c1)"); // sums alone: a loop of their own
                }
                for (String q : queries) {
                    Dataset<Row> pushed = df.selectExpr(q.split(", "));
                    String plan = pushed.queryExecution().executedPlan().toString();
                    assertTrue(plan.contains("agg_func_0"), t + ": " + plan); // the scan returns partial aggregates
                    // Spark's own: the same rows from a DataFrame that is not this source
                    Dataset<Row> plain = spark.createDataFrame(df.collectAsList(), df.schema()).selectExpr(q.split(", "));
                    Row got = pushed.first();
                    Row want = plain.first();
                    for (int i = 0; i < want.size(); i++) {
                        Object g = got.get(i);
                        Object w = want.get(i);
                        if (w instanceof Double dw && g instanceof Double dg && !dw.isNaN()) {
                            assertEquals(dw, dg, Math.abs(dw) * 1e-12, t + " " + i);
                        } else {
                            assertEquals(String.valueOf(w), String.valueOf(g), t + " aggregate " + i + " of " + q);
                        }
                    }
                }
            }
        }
    }

    /** The mappings of the array {@code name} in this process. */
    private static long mappings(String name) throws Exception {
        try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.endsWith("/" + name) || l.contains("/" + name + " ")).count();
        }
    }

    @Test
    void anExecutorKeepsAnOwnersArrayMappedBetweenQueriesAndLetsItGoWithItsName() throws Exception {
        String kept = unique("sp-kept");
        String shared = unique("sp-shared");
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, new long[] {1000, 2}, CreateOptions.defaults().name(kept));
                SharedNDArray<F64> b = SharedArrays.create(F64.TYPE, new long[] {1000, 2},
                        CreateOptions.defaults().name(shared).lifetime(dev.sharedarrays.Lifetime.SHARED))) {
            a.fill(2);
            b.fill(3);
            long mine = mappings(kept);
            assertEquals(mine, mappings(shared));
            assertEquals(2000.0, spark.read().format("sharedarrays").load(kept).agg(functions.sum("c0"), functions.sum("c1")).first().getDouble(1));
            assertEquals(3000.0, spark.read().format("sharedarrays").load(shared).agg(functions.sum("c0")).first().getDouble(0));
            // the executor (this JVM) keeps the OWNER array mapped for the next query, one mapping for all its tasks;
            // the SHARED one, whose removal would wait on it, went with its last task
            assertEquals(mine + 1, mappings(kept));
            assertEquals(mine, mappings(shared));
            assertEquals(2000.0, spark.read().format("sharedarrays").load(kept).agg(functions.sum("c1")).first().getDouble(0));
            assertEquals(mine + 1, mappings(kept));
        }
        // its creator closed it, its name is gone: the executor lets its memory go within a second or two
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (mappings(kept) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(0, mappings(kept));
        assertEquals(0, mappings(shared));
        assertEquals(List.of(), leftovers("sp-kept"));
    }

    @Test
    void wideAndDeepArraysAreOneArrayColumn() {
        String name = unique("sp-deep");
        try (SharedNDArray<I32> a = SharedArrays.create(I32.TYPE, new long[] {6, 2, 3}, CreateOptions.defaults().name(name))) {
            for (long i = 0; i < a.size(); i++) {
                a.setLong(i, i);
            }
            Dataset<Row> df = spark.read().format("sharedarrays").load(name);
            assertEquals("struct<index:bigint,values:array<int>>", df.schema().simpleString());
            Row r = df.where("index = 4").first();
            assertEquals(List.of(24, 25, 26, 27, 28, 29), r.getList(1));
        }
    }

    @Test
    void aWriteMakesAnArrayOfTheRowsInOrder() throws Exception {
        String name = unique("sp-write");
        Dataset<Row> df = spark.range(0, 10_000, 1, 3).selectExpr("id * 2 AS a", "CAST(id AS DOUBLE) / 4 AS b", "id % 7 AS c");
        df.write().format("sharedarrays").save(name);
        try (SharedNDArray<?> out = SharedArrays.attach(ArrayHandle.parse("shm://" + name))) {
            assertEquals(F64.TYPE, out.dtype()); // a mix of bigint and double: f64
            assertArrayEquals(new long[] {10_000, 3}, out.shape());
            for (long r = 0; r < 10_000; r += 997) {
                assertEquals(r * 2.0, out.getDouble(new long[] {r, 0}));
                assertEquals(r / 4.0, out.getDouble(new long[] {r, 1}));
                assertEquals((double) (r % 7), out.getDouble(new long[] {r, 2}));
            }
        }
        // error if it exists, replace on overwrite (with the dtype asked for), no append
        var exists = assertThrows(Exception.class, () -> df.write().format("sharedarrays").save(name));
        assertTrue(exists.getMessage().contains("exists; write with mode(\"overwrite\")"), exists.getMessage());
        df.select("a").write().format("sharedarrays").mode("overwrite").option("dtype", "i4").save(name);
        try (SharedNDArray<?> out = SharedArrays.attach(ArrayHandle.parse("shm://" + name))) {
            assertEquals(I32.TYPE, out.dtype());
            assertArrayEquals(new long[] {10_000}, out.shape());
            assertEquals(19_998, out.getLong(9_999));
        }
        var append = assertThrows(Exception.class, () -> df.write().format("sharedarrays").mode("append").save(name));
        assertTrue(append.getMessage().contains("cannot append"), append.getMessage());
        // round trip: an array read and written back under another name is the same array
        String copy = unique("sp-copy");
        spark.read().format("sharedarrays").load(name).write().format("sharedarrays").save(copy);
        try (SharedNDArray<?> a = SharedArrays.attach(ArrayHandle.parse("shm://" + name));
             SharedNDArray<?> b = SharedArrays.attach(ArrayHandle.parse("shm://" + copy))) {
            assertArrayEquals(a.shape(), b.shape());
            assertEquals(a.sum(), b.sum());
        } finally {
            SharedArrays.remove(ArrayHandle.parse("shm://" + name), true);
            SharedArrays.remove(ArrayHandle.parse("shm://" + copy), true);
        }
        assertEquals(List.of(), leftovers(name));
    }

    @Test
    void aNullOrARowOfTheWrongWidthFailsTheJobClearlyAndLeavesNothing() throws Exception {
        String name = unique("sp-bad");
        Dataset<Row> nulls = spark.range(0, 1000, 1, 2).selectExpr("IF(id = 700, NULL, id) AS v");
        var e = assertThrows(Exception.class, () -> nulls.write().format("sharedarrays").save(name));
        assertTrue(rootMessage(e).contains("column v has a null"), rootMessage(e));
        Dataset<Row> ragged = spark.range(0, 100, 1, 2).selectExpr("IF(id = 60, array(1.0, 2.0), array(1.0, 2.0, 3.0)) AS xs");
        var w = assertThrows(Exception.class, () -> ragged.write().format("sharedarrays").save(name));
        assertTrue(rootMessage(w).contains("rows are all one length"), rootMessage(w));
        assertEquals(List.of(), leftovers(name));
    }

    private static String rootMessage(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append(" | ");
        }
        return b.toString();
    }

    /** The next message; a wait that runs out says how the query stands. */
    private static SharedNDArray<?> receiveOrSay(ArrayQueue q, StreamingQuery query, int got) {
        try {
            return q.receive(Duration.ofSeconds(60));
        } catch (dev.sharedarrays.WaitTimeoutException e) {
            throw new AssertionError("after " + got + " rows: " + query.status() + ", last progress " + query.lastProgress()
                    + (query.exception().isDefined() ? ", failed: " + query.exception().get() : ""), e);
        }
    }

    @Test
    void aQueueThroughAStreamingQueryIntoAnotherQueueEndsWithItsQueue() throws Exception {
        String in = unique("sp-qin");
        String out = unique("sp-qout");
        int n = 200;
        Path checkpoint = Files.createTempDirectory("sa-spark-checkpoint");
        try (ArrayQueue source = ArrayQueue.create(8, CreateOptions.defaults().name(in));
             ArrayQueue sink = ArrayQueue.create(64, CreateOptions.defaults().name(out));
             ArrayPool<F64> pool = ArrayPool.create(F64.TYPE, 6, 2, 3)) {
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                for (int k = 0; k < n; k++) {
                    SharedNDArray<F64> s = pool.acquire(Duration.ofSeconds(60));
                    for (int j = 0; j < 6; j++) {
                        s.setDouble(j, k * 10 + j);
                    }
                    source.send(s, Duration.ofSeconds(60));
                }
                source.end();
            });
            Dataset<Row> rows = spark.readStream().format("sharedarrays").option("dtype", "f8").option("shape", "2,3").load("queue/" + in);
            assertEquals("struct<message:bigint,index:bigint,c0:double,c1:double,c2:double>", rows.schema().simpleString());
            StreamingQuery q = rows.selectExpr("message", "index AS row", "c0 + c1 + c2 AS total").writeStream().format("sharedarrays")
                    .option("checkpointLocation", checkpoint.toString()).start("queue/" + out);
            List<double[]> got = new ArrayList<>();
            while (got.size() < 2 * n) {
                try (SharedNDArray<?> m = receiveOrSay(sink, q, got.size())) {
                    assertTrue(m != null, "the sink's queue ended early");
                    got.add(m.toDoubleArray());
                }
            }
            producer.get(60, TimeUnit.SECONDS);
            assertTrue(q.awaitTermination(60_000), "the end of the source queue should end the query");
            assertEquals(null, q.exception().isDefined() ? q.exception().get() : null);
            // every row once: message k row r is (k, r, 3 * (10 k + 3 r) + 3) (a column named index would be left out: it is a position)
            List<String> seen = got.stream().map(v -> (long) v[0] + ":" + (long) v[1] + ":" + v[2]).sorted().collect(Collectors.toList());
            List<String> want = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                for (int r = 0; r < 2; r++) {
                    want.add((k + 1) + ":" + r + ":" + (3.0 * (10 * k + 3 * r) + 3));
                }
            }
            want.sort(null);
            assertEquals(want, seen);
            assertEquals(6, pool.free(), "every slot the stream took went back");
        } finally {
            try (var walk = Files.walk(checkpoint)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}

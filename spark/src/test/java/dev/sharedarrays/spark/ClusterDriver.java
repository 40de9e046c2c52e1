package dev.sharedarrays.spark;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedNDArray;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The driver of {@link SparkClusterTest}, run on host A beside the array: a standalone cluster's
 * executors (on host B) read the array through A's Flight bridge. Prints {@code SUMS <ours> <local>}
 * (Spark SQL's per-column sums, and this process's own of the array), then {@code SLOW STARTED}
 * and, once a job whose tasks take their time has finished (the test kills an executor in it),
 * {@code SLOW <sum> <local>}.
 *
 * <p>Arguments: master URL, bridge location, token, array name, this host's address, executor class path.
 */
public final class ClusterDriver {
    private ClusterDriver() {
    }

    public static void main(String[] args) throws Exception {
        String master = args[0];
        String flight = args[1];
        String token = args[2];
        String name = args[3];
        String host = args[4];
        String executorClassPath = args[5];
        SparkSession spark = SparkSession.builder().master(master).appName("sharedarrays-cluster-test")
                .config("spark.driver.host", host).config("spark.driver.bindAddress", host)
                .config("spark.ui.enabled", "false")
                .config("spark.executor.memory", "512m").config("spark.cores.max", "1")
                .config("spark.executor.extraClassPath", executorClassPath)
                .config("spark.executor.extraJavaOptions", System.getProperty("spark.jvm.flags", ""))
                .config("spark.task.maxFailures", "8")
                .getOrCreate();
        try {
            Dataset<Row> df = spark.read().format("sharedarrays").option("flight", flight).option("token", token)
                    .option("partitions", "8").load(name);
            List<String> cols = List.of("c0", "c1", "c2", "c3");
            Row sums = df.agg(functions.sum("c0"), functions.sum("c1"), functions.sum("c2"), functions.sum("c3")).first();
            double[] local = localSums(name);
            List<String> ours = new ArrayList<>();
            for (int c = 0; c < cols.size(); c++) {
                ours.add(Double.toString(sums.getDouble(c)));
            }
            System.out.println("SUMS " + String.join(",", ours) + " " + String.join(",", java.util.Arrays.stream(local)
                    .mapToObj(Double::toString).toList()));
            System.out.flush();
            // a job whose 8 tasks take a second each: the test kills the executor in the middle
            System.out.println("SLOW STARTED");
            System.out.flush();
            double slow = df.select("c1").javaRDD().mapPartitions((FlatMapFunction<Iterator<Row>, Double>) rows -> {
                Thread.sleep(1000);
                double s = 0;
                while (rows.hasNext()) {
                    s += rows.next().getDouble(0);
                }
                return List.of(s).iterator();
            }).reduce(Double::sum);
            System.out.println("SLOW " + slow + " " + local[1]);
            System.out.flush();
        } finally {
            spark.stop();
        }
    }

    private static double[] localSums(String name) {
        try (SharedNDArray<?> a = SharedArrays.attach(ArrayHandle.parse("shm://" + name))) {
            long rows = a.shape()[0];
            double[] s = new double[4];
            for (long r = 0; r < rows; r++) {
                for (int c = 0; c < 4; c++) {
                    s[c] += a.getDouble(new long[] {r, c});
                }
            }
            return s;
        }
    }
}

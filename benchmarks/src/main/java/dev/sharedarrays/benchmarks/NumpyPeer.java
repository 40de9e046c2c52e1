package dev.sharedarrays.benchmarks;

import dev.sharedarrays.SharedNDArray;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A python3 running one of benchmarks/python/*_bench.py on the same shared segments, kept running
 * and asked a line at a time, so that numpy's calls run right next to the JVM's. The script prints
 * numpy's version first, then answers each request line with the ms of its calls on one line.
 */
record NumpyPeer(Process process, BufferedReader out, Writer in, String version) implements AutoCloseable {
    /** Starts benchmarks/python/{@code script} with {@code args}, then the arrays' paths. */
    static NumpyPeer start(String script, List<String> args, List<SharedNDArray<?>> arrays) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("python3", OpsBenchmark.script(script).toString()));
        cmd.addAll(args);
        arrays.forEach(x -> cmd.add(x.path().orElseThrow().toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String version = out.readLine();
        if (version == null) {
            p.destroyForcibly();
            throw new IllegalStateException("python3 " + cmd + " printed nothing");
        }
        return new NumpyPeer(p, out, new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), version.strip());
    }

    /** The ms of the calls that {@code request} asked for, in the order they ran. */
    double[] times(String request) throws IOException {
        in.write(request + "\n");
        in.flush();
        String line = out.readLine();
        if (line == null) {
            throw new IllegalStateException("python3 ended before answering " + request);
        }
        return Arrays.stream(line.strip().split(" ")).mapToDouble(Double::parseDouble).toArray();
    }

    @Override
    public void close() throws IOException {
        in.close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

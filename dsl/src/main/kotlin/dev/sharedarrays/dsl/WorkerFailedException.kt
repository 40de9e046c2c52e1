package dev.sharedarrays.dsl

/**
 * A worker JVM started by [WorkerProcesses.start] exited with a non-zero status ([exitCode];
 * -1 if it was still running when its time ran out). The others had been killed when this
 * was thrown; the message ends with the worker's last output lines.
 */
public class WorkerFailedException(
    message: String,
    public val worker: Int,
    public val pid: Long,
    public val exitCode: Int,
) : RuntimeException(message)

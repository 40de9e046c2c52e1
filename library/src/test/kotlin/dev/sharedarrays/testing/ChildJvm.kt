package dev.sharedarrays.testing

import java.io.File

/**
 * A child JVM running [Child] with this JVM's classpath and native-access flag. Its stdout lines
 * are queued for [expectLine]; stderr is echoed with a prefix. [close] kills it (by its own pid)
 * if it still runs. It compiles with C1 only (it starts faster) unless [fullJit]; [jvmArgs] go
 * before the class name (`--add-modules jdk.incubator.vector`, `-Djava.io.tmpdir=...`). [shell],
 * if given, is sh code run before the JVM replaces the shell (e.g. `umask 000` or
 * `ulimit -n 4096`): the pid stays the JVM's.
 */
class ChildJvm(
    vararg args: String,
    env: Map<String, String> = emptyMap(),
    jvmArgs: List<String> = emptyList(),
    fullJit: Boolean = false,
    shell: String? = null,
) : ChildProcess(start(args, env, jvmArgs, fullJit, shell), "child") {
    private companion object {
        fun start(args: Array<out String>, env: Map<String, String>, jvmArgs: List<String>, fullJit: Boolean, shell: String?): Process {
            val java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java")
            val jit = if (fullJit) emptyList() else listOf("-XX:TieredStopAtLevel=1")
            val cmd = listOf(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC") + jit + jvmArgs +
                listOf("-cp", System.getProperty("java.class.path"), Child::class.java.name) + args
            val pb = ProcessBuilder(if (shell == null) cmd else listOf("sh", "-c", "$shell; exec \"\$@\"", "sh") + cmd)
            pb.environment().remove("SHARED_ARRAYS_BACKEND")
            pb.environment().remove("SHARED_ARRAYS_DIR")
            pb.environment().putAll(env)
            return pb.start()
        }
    }
}

private val scratchBase: File by lazy {
    val base = File(System.getProperty("java.io.tmpdir"), "sa-test-" + ProcessHandle.current().pid())
    Runtime.getRuntime().addShutdownHook(Thread { base.deleteRecursively() })
    base
}

/** A fresh directory under /tmp (short enough for Unix socket paths), removed when the test JVM exits. */
fun scratchDir(name: String): File {
    val dir = File(scratchBase, name + "-" + System.nanoTime())
    dir.mkdirs()
    return dir
}

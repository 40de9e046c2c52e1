package dev.sharedarrays.testing

import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The repository's Python peer environment: `<repo>/target/pyenv`, a virtual environment with
 * `./python` and pytest installed, made or refreshed by `python/ensure-env` (which reinstalls when
 * the package's sources are newer than its stamp; the first install takes some seconds).
 */
object PythonEnv {
    /** The repository root: the nearest directory above the working directory with python/pyproject.toml. */
    val root: File by lazy {
        generateSequence(File(System.getProperty("user.dir")).absoluteFile) { it.parentFile }
            .firstOrNull { File(it, "python/pyproject.toml").isFile }
            ?: error("no python/pyproject.toml above ${System.getProperty("user.dir")}")
    }

    /** The environment's python, installed and up to date. */
    val python: String by lazy {
        val p = ProcessBuilder(File(root, "python/ensure-env").path)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
        val out = p.inputStream.bufferedReader().readText()
        check(p.waitFor(600, TimeUnit.SECONDS) && p.exitValue() == 0) { "python/ensure-env failed (exit ${p.exitValue()}): $out" }
        out.trim().lines().last()
    }

    val peerScript: File get() = File(root, "python/tests/peers/peer.py")
}

/**
 * A Python peer process running `python/tests/peers/peer.py` (see its docstring for the commands)
 * in [PythonEnv]. Its stdout lines are queued for [expectLine]; stderr is echoed with a prefix.
 * [close] kills it (by its own pid) if it still runs. Like [ChildJvm], it starts without
 * SHARED_ARRAYS_BACKEND and SHARED_ARRAYS_DIR unless [env] sets them.
 */
class PythonPeer(vararg args: String, env: Map<String, String> = emptyMap()) :
    ChildProcess(start(args, env), "python peer") {
    private companion object {
        fun start(args: Array<out String>, env: Map<String, String>): Process {
            val pb = ProcessBuilder(listOf(PythonEnv.python, PythonEnv.peerScript.path) + args)
            pb.environment().remove("SHARED_ARRAYS_BACKEND")
            pb.environment().remove("SHARED_ARRAYS_DIR")
            pb.environment()["PYTHONUNBUFFERED"] = "1"
            pb.environment().putAll(env)
            return pb.start()
        }
    }
}

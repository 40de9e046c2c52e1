package dev.sharedarrays

import dev.sharedarrays.testing.DesktoplessProbe
import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldContain
import java.io.File
import java.io.PrintWriter
import java.io.StringWriter
import java.util.concurrent.TimeUnit
import java.util.spi.ToolProvider

/**
 * The library needs `java.desktop` for pictures only: a jlink image of `java.base` alone runs it, the
 * library on the module path (where a plain `requires java.desktop` would stop the JVM at start), and a
 * child JVM of that image creates an array, attaches it by handle, sums it, and gets a clear error
 * from toPng.
 */
class DesktoplessImageTest : FunSpec({
    test("a jlink image without java.desktop creates, attaches and sums; toPng says what it lacks") {
        val jlink = ToolProvider.findFirst("jlink").orElseThrow { AssertionError("this JDK has no jlink") }
        val image = File("target/image-without-desktop")
        image.deleteRecursively()
        val out = StringWriter()
        val status = jlink.run(PrintWriter(out), PrintWriter(out), "--add-modules", "java.base", "--output", image.path)
        withClue("jlink: $out") { status shouldBe 0 }
        try {
            val modules = ProcessBuilder(File(image, "bin/java").path, "--list-modules").start()
            val listed = modules.inputReader().readText()
            modules.waitFor(30, TimeUnit.SECONDS)
            withClue("the image's modules: $listed") { listed.contains("java.desktop") shouldBe false }
            // the probe on the class path, its Kotlin runtime with it; the library as a named module
            val stdlib = File(Unit::class.java.protectionDomain.codeSource.location.toURI()).path
            val cmd = listOf(File(image, "bin/java").path, "--enable-native-access=dev.sharedarrays,ALL-UNNAMED",
                "--module-path", "target/classes", "--add-modules", "dev.sharedarrays",
                "-cp", "target/test-classes" + File.pathSeparator + stdlib, DesktoplessProbe::class.java.name)
            val p = ProcessBuilder(cmd).redirectErrorStream(true).start()
            try {
                val text = p.inputReader().readText()
                p.waitFor(60, TimeUnit.SECONDS) shouldBe true
                withClue("the probe's output:\n$text") {
                    p.exitValue() shouldBe 0
                    text shouldContain "sum 6000.0 attached 6000.0"
                    text shouldContain "toPng: UnsupportedOperationException: toPng draws with java.awt and javax.imageio, and this runtime has no java.desktop module"
                    text shouldContain "module dev.sharedarrays"
                }
            } finally {
                p.destroyForcibly()
            }
        } finally {
            image.deleteRecursively()
        }
    }
})

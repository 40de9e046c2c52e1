package dev.sharedarrays.notebook.internal

import java.io.File
import java.nio.file.Files
import java.nio.file.Path
import kotlin.script.experimental.api.CompiledSnippet
import kotlin.script.experimental.api.ResultValue
import kotlin.script.experimental.api.ResultWithDiagnostics
import kotlin.script.experimental.api.ScriptCompilationConfiguration
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.api.ScriptEvaluationConfiguration
import kotlin.script.experimental.api.defaultImports
import kotlin.script.experimental.api.repl
import kotlin.script.experimental.api.with
import kotlin.script.experimental.host.ScriptingHostConfiguration
import kotlin.script.experimental.host.toScriptSource
import kotlin.script.experimental.jvm.KJvmEvaluatedSnippet
import kotlin.script.experimental.jvm.baseClassLoader
import kotlin.script.experimental.jvm.defaultJvmScriptingHostConfiguration
import kotlin.script.experimental.jvm.impl.KJvmCompiledModuleInMemory
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.jvm.jvm
import kotlin.script.experimental.jvm.jvmTarget
import kotlin.script.experimental.jvm.updateClasspath
import kotlin.script.experimental.util.LinkedSnippet
import kotlin.script.experimental.util.LinkedSnippetImpl
import kotlinx.coroutines.runBlocking
import org.jetbrains.kotlin.com.intellij.openapi.util.Disposer
import org.jetbrains.kotlin.com.intellij.openapi.util.TextRange
import org.jetbrains.kotlin.com.intellij.psi.PsiErrorElement
import org.jetbrains.kotlin.com.intellij.psi.util.PsiTreeUtil
import org.jetbrains.kotlin.fir.extensions.FirReplHistoryProvider
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtDeclaration
import org.jetbrains.kotlin.psi.KtDestructuringDeclaration
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtProperty
import org.jetbrains.kotlin.psi.KtPsiFactory
import org.jetbrains.kotlin.psi.KtScriptInitializer
import org.jetbrains.kotlin.psi.KtStringTemplateExpression
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompiler
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ScriptDiagnosticsMessageCollector
import org.jetbrains.kotlin.scripting.compiler.plugin.services.firReplHistoryProvider
import org.jetbrains.kotlin.scripting.compiler.plugin.services.isReplSnippetSource

/** What one cell gave: its value (with its static type), nothing (Unit), or a compile error. */
internal sealed class CellResult {
    class Value(val value: Any?) : CellResult()
    object NoValue : CellResult()
    class CompileError(val errors: List<String>) : CellResult()
}

/** A cell that threw: the exception as the cell's code threw it. */
internal class CellThrew(val error: Throwable) : RuntimeException(error.toString(), error)

/**
 * Kotlin's own REPL (K2ReplCompiler and K2ReplEvaluator of kotlin-scripting-compiler-embeddable) with what
 * a notebook needs of it: cells compile against [classpath] and run in [loader] (the kernel's own, so an
 * array a cell returns is the kernel's SharedNDArray), for the running JDK (the default target, Java 8,
 * cannot inline the DSL), with [imports] in every cell. Called from one thread only.
 */
internal class KotlinRepl(classpath: List<File>, imports: List<String>, private val loader: ClassLoader) {
    private val disposable = Disposer.newDisposable("sharedarrays-kotlin-kernel")
    private var compilation = ScriptCompilationConfiguration {
        jvm {
            jvmTarget(Runtime.version().feature().toString())
            updateClasspath(classpath)
        }
        defaultImports(imports)
    }
    private val evaluation = ScriptEvaluationConfiguration {
        jvm { baseClassLoader(loader) }
    }
    private val history = TransactionalHistory()
    private val state = K2ReplCompiler.createCompilationState(
        ScriptDiagnosticsMessageCollector(null), disposable, compilation,
        ScriptingHostConfiguration(defaultJvmScriptingHostConfiguration) {
            repl {
                firReplHistoryProvider(history)
                isReplSnippetSource { _, _ -> true }
            }
        })
    private val compiler = K2ReplCompiler(state)
    private val evaluator = K2ReplEvaluator()
    private val classes: Path by lazy {
        Files.createTempDirectory("sharedarrays-kotlin-cells").also { dir ->
            Runtime.getRuntime().addShutdownHook(Thread {
                dir.parent.toFile().listFiles { f -> f.name.startsWith(dir.fileName.toString()) }?.forEach { it.deleteRecursively() }
            })
            System.setProperty("java.class.path", System.getProperty("java.class.path") + File.pathSeparator + dir)
        }
    }
    private var cells = 0

    /** The source name of the cell being compiled ("Line_N.repl.kts"): its frames carry it. */
    var currentSource: String = ""
        private set

    /**
     * Compiles and runs one cell. A top-level statement that calls a suspending function is run in a
     * coroutine ([CellCoroutine.run]): the REPL compiles a cell into a plain method, where such a call is
     * an error.
     */
    fun eval(code: String): CellResult {
        val first = compile(code)
        val compiled = when (first) {
            is Compiled.Ok -> first.snippet
            is Compiled.Failed -> {
                val rewritten = if (first.suspendCalls.isEmpty()) null else inCoroutine(code, first.suspendCalls)
                val second = rewritten?.let { compile(it) }
                when (second) {
                    is Compiled.Ok -> second.snippet
                    else -> return CellResult.CompileError(first.errors)
                }
            }
        }
        val evaluated = runBlocking { evaluator.eval(compiled, evaluation) }
        return when (evaluated) {
            is ResultWithDiagnostics.Failure -> throw CellThrew(
                evaluated.reports.firstNotNullOfOrNull { it.exception } ?: IllegalStateException(evaluated.reports.joinToString { it.message }))
            is ResultWithDiagnostics.Success -> when (val r = evaluated.value.get().result) {
                is ResultValue.Value -> CellResult.Value(r.value)
                is ResultValue.Unit -> CellResult.NoValue
                is ResultValue.Error -> throw CellThrew(r.error)
                is ResultValue.NotEvaluated -> throw IllegalStateException("the cell was not run")
            }
        }
    }

    private sealed class Compiled {
        class Ok(val snippet: LinkedSnippet<CompiledSnippet>) : Compiled()
        class Failed(val errors: List<String>, val suspendCalls: List<ScriptDiagnostic>) : Compiled()
    }

    private fun compile(code: String): Compiled {
        currentSource = "Line_${++cells}.repl.kts"
        val r = try {
            // compile is a suspend function that never suspends
            runBlocking { compiler.compile(code.toScriptSource(currentSource), compilation) }
        } catch (e: Throwable) {
            // the backend throws some errors instead of reporting them
            history.rollback()
            val root = generateSequence(e) { it.cause }.last()
            return Compiled.Failed(listOf("the Kotlin compiler failed on this cell: ${root.javaClass.simpleName}: ${root.message?.lineSequence()?.first()}"), emptyList())
        }
        if (r !is ResultWithDiagnostics.Success) {
            history.rollback()
            val errors = r.reports.filter { it.severity >= ScriptDiagnostic.Severity.ERROR }
            return Compiled.Failed(errors.map { d ->
                val at = d.location?.start
                if (at == null) d.message else "line ${at.line}, column ${at.col}: ${d.message}"
            }, errors.filter { it.message.contains("can only be called from a coroutine or another suspend function") })
        }
        history.commit()
        // Every cell's classes go to a directory on java.class.path, so that a worker JVM this one starts can run
        // an object a cell declared. An inline function declared in a cell is not found by the later cells that
        // call it ("Couldn't find declaration file"): such a cell's directory joins the later cells' class path.
        val module = (r.value.get() as KJvmCompiledScript).getCompiledModule() as? KJvmCompiledModuleInMemory
        if (module != null) {
            write(module, classes)
            if (INLINE.containsMatchIn(code)) {
                val dir = classes.resolveSibling(classes.fileName.toString() + "-" + currentSource.removeSuffix(".repl.kts"))
                write(module, dir)
                compilation = compilation.with { jvm { updateClasspath(listOf(dir.toFile())) } }
            }
        }
        return Compiled.Ok(r.value)
    }

    /**
     * The cell with each top-level statement that holds one of [errors] run in a coroutine: `val v = init`
     * as `val v = CellCoroutine.run { init }` (v stays visible to later cells), any other statement `s` as
     * `CellCoroutine.run { s }` (its value stays the cell's). On the statement's own lines, so that the lines
     * of errors and frames stay the cell's. Null if a call is inside a declaration (a real error).
     */
    private fun inCoroutine(code: String, errors: List<ScriptDiagnostic>): String? {
        val lineStarts = listOf(0) + code.indices.filter { code[it] == '\n' }.map { it + 1 }
        val offsets = errors.mapNotNull { d -> d.location?.start?.let { p -> lineStarts.getOrNull(p.line - 1)?.plus(p.col - 1) } }
        val script = parse(code).script ?: return null
        val edits = mutableListOf<Pair<TextRange, String>>()
        for (statement in script.blockExpression.statements) {
            val st = (statement as? KtScriptInitializer)?.body ?: statement
            if (offsets.none { st.textRange.containsOffset(it) }) continue
            val target = when (st) {
                is KtProperty -> if (st.hasDelegate()) return null else st.initializer ?: return null
                is KtDestructuringDeclaration -> st.initializer ?: return null
                is KtDeclaration -> return null
                else -> st
            }
            edits += target.textRange to "dev.sharedarrays.notebook.internal.CellCoroutine.run { ${target.text} }"
        }
        if (edits.isEmpty()) return null
        var out = code
        for ((r, text) in edits.sortedByDescending { it.first.startOffset }) {
            out = out.substring(0, r.startOffset) + text + out.substring(r.endOffset)
        }
        return out
    }

    private fun write(module: KJvmCompiledModuleInMemory, dir: Path) {
        for ((path, bytes) in module.compilerOutputFiles) {
            val f = dir.resolve(path)
            Files.createDirectories(f.parent)
            Files.write(f, bytes)
        }
    }

    private fun parse(code: String): KtFile = KtPsiFactory(state.project, false).createFile("cell.kts", code)

    /**
     * Jupyter's is_complete from the compiler's parser (the REPL compiles `fun g() {` without an error):
     * "incomplete" if the only syntax error is at the end of the text or a string is left open, "invalid"
     * for one elsewhere, else "complete".
     */
    fun completeness(code: String): String {
        val file = parse(code)
        val errors = PsiTreeUtil.collectElementsOfType(file, PsiErrorElement::class.java)
        val end = code.trimEnd().length
        val openString = PsiTreeUtil.collectElementsOfType(file, KtStringTemplateExpression::class.java)
            .any { it.lastChild?.node?.elementType != KtTokens.CLOSING_QUOTE }
        return when {
            openString || errors.any { it.textRange.startOffset >= end && it.textLength == 0 } -> "incomplete"
            errors.isNotEmpty() -> "invalid"
            else -> "complete"
        }
    }

    /** The static type of [expression] (compiled as a cell that is neither kept nor run), or null. */
    fun typeOf(expression: String): String? {
        val last = state.lastCompiledSnippet
        val r = runCatching { runBlocking { compiler.compile(expression.toScriptSource("Probe.repl.kts"), compilation) } }.getOrNull()
        history.rollback()
        // the evaluator runs every compiled snippet not yet run: a probe must not stay in the chain
        state.lastCompiledSnippet = last
        return ((r as? ResultWithDiagnostics.Success)?.value?.get() as? KJvmCompiledScript)?.resultField?.second?.typeName
    }

    private fun evaluatedClasses(): List<Class<*>> =
        generateSequence(evaluator.lastEvaluatedSnippet) { it.previous }
            .mapNotNull { it.get().result.scriptClass?.java }.toList()

    /** The loader of the last cell (earlier cells' classes visible from it). */
    fun cellLoader(): ClassLoader = evaluatedClasses().firstOrNull()?.classLoader ?: loader

    /** The names earlier cells declared: their classes' public fields and methods, getters as properties. */
    fun declaredNames(): List<String> = evaluatedClasses().flatMap { c ->
        c.declaredFields.filter { java.lang.reflect.Modifier.isPublic(it.modifiers) }.map { it.name } +
            c.declaredMethods.filter { java.lang.reflect.Modifier.isPublic(it.modifiers) }.map {
                if (it.parameterCount == 0 && GETTER.matches(it.name)) it.name.removePrefix("get").replaceFirstChar(Char::lowercase) else it.name
            }
    }.filter { it != "INSTANCE" && !it.startsWith("$") && !RESULT.matches(it) && !it.startsWith("set") }.distinct()

    /**
     * Marks the cell whose thread ignored an interrupt as run, or the evaluator would run it again before
     * the next cell. The cell's instance is in the REPL's generated `ReplState` (a cell puts itself there
     * first); the evaluator's field is private.
     */
    fun abandonRunningCell() {
        val compiled = state.lastCompiledSnippet?.get() as? KJvmCompiledScript ?: return
        val replState = runCatching { Class.forName("ReplState", true, cellLoader()).getField("INSTANCE").get(null) as Map<*, *> }
            .getOrNull() ?: return
        val instance = replState[compiled.scriptClassFQName] ?: return
        val gone = InterruptedException("the cell was abandoned")
        val evaluated = KJvmEvaluatedSnippet(compiled, evaluation, ResultValue.Error(gone, gone, instance::class))
        val field = K2ReplEvaluator::class.java.getDeclaredField("lastEvaluatedSnippet").apply { isAccessible = true }
        field.set(evaluator, LinkedSnippetImpl(evaluated, evaluator.lastEvaluatedSnippet))
    }

    fun dispose() = Disposer.dispose(disposable)

    /**
     * The REPL's history of declarations, kept only for cells that compiled: the compiler's own keeps a failed
     * cell's symbols, and the later cells that use them fail at run time.
     */
    private class TransactionalHistory : FirReplHistoryProvider() {
        private val committed = LinkedHashSet<FirReplSnippetSymbol>()
        private val pending = LinkedHashSet<FirReplSnippetSymbol>()
        override fun getSnippets(): Iterable<FirReplSnippetSymbol> = committed + pending
        override fun putSnippet(symbol: FirReplSnippetSymbol) {
            pending.add(symbol)
        }
        override fun isFirstSnippet(symbol: FirReplSnippetSymbol): Boolean = getSnippets().firstOrNull() == symbol
        override fun getSnippetCount(): Int = committed.size + pending.size
        fun commit() {
            committed.addAll(pending)
            pending.clear()
        }
        fun rollback() = pending.clear()
    }

    private companion object {
        val INLINE = Regex("""\binline\b""")
        val GETTER = Regex("(get|is)[A-Z].*")
        val RESULT = Regex("res\\d+")
    }
}

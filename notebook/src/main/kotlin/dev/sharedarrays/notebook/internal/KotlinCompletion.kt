package dev.sharedarrays.notebook.internal

import java.io.File
import java.lang.invoke.MethodType
import java.lang.reflect.Method
import java.lang.reflect.Modifier
import java.util.jar.JarFile
import kotlin.reflect.KParameter
import kotlin.reflect.KVisibility
import kotlin.reflect.jvm.kotlinFunction

/**
 * Tab completion for the Kotlin kernel (Kotlin's REPL compiler has no completion API):
 * - after `expr.`: the static type of `expr` from compiling it as a probe cell that never runs
 *   ([KotlinRepl.typeOf]), then that class's members (getters as properties) and the extension
 *   functions for it and its supertypes, found in the `...Kt` classes of [jars] (kotlin-reflect tells an
 *   extension from another top-level function);
 * - else: the names earlier cells declared and Kotlin's keywords.
 */
internal class KotlinCompletion(private val repl: KotlinRepl, private val jars: List<File>) {
    /** Static methods of the top-level function classes, by their first parameter's type. */
    private val staticsByReceiver: Map<Class<*>, List<Method>> by lazy {
        val out = HashMap<Class<*>, MutableList<Method>>()
        for (jar in jars) {
            JarFile(jar).use { jf ->
                for (e in jf.entries()) {
                    val n = e.name
                    if (!(n.endsWith("Kt.class") || n.contains("Kt__")) || n.contains('$') || n.startsWith("META-INF")) continue
                    val cls = runCatching { Class.forName(n.removeSuffix(".class").replace('/', '.'), false, javaClass.classLoader) }.getOrNull() ?: continue
                    for (m in runCatching { cls.declaredMethods }.getOrDefault(emptyArray())) {
                        if (Modifier.isStatic(m.modifiers) && m.parameterCount > 0 && !m.isSynthetic && !m.name.contains('$')) {
                            out.getOrPut(m.parameterTypes[0]) { mutableListOf() } += m
                        }
                    }
                }
            }
        }
        out
    }
    private val extensionNames = HashMap<Method, String?>()

    /** What may replace the word before [cursor]: (options, where the word starts). */
    fun complete(code: String, cursor: Int): Pair<List<String>, Int> {
        val before = code.substring(0, cursor)
        val word = WORD.find(before)!!.value
        val start = cursor - word.length
        val dot = before.substring(0, start)
        if (dot.endsWith(".")) {
            val receiver = dot.removeSuffix(".").substringAfterLast('\n').trim()
            val type = repl.typeOf(receiver) ?: return emptyList<String>() to start
            val cls = jvmClass(type) ?: return emptyList<String>() to start
            val members = cls.methods.filter { !Modifier.isStatic(it.modifiers) }.map { propertyName(it) } +
                supertypes(cls).flatMap { staticsByReceiver[it].orEmpty() }.mapNotNull { extensionName(it) }
            return members.filter { it.startsWith(word) && !it.contains('$') }.distinct().sorted() to start
        }
        return (repl.declaredNames() + KEYWORDS).filter { it.startsWith(word) }.distinct().sorted() to start
    }

    private fun extensionName(m: Method): String? = extensionNames.getOrPut(m) {
        runCatching {
            m.kotlinFunction?.takeIf { f ->
                f.visibility == KVisibility.PUBLIC &&
                    f.parameters.any { it.kind == KParameter.Kind.EXTENSION_RECEIVER } &&
                    f.annotations.none { it is Deprecated && it.level != DeprecationLevel.WARNING }
            }?.name
        }.getOrNull()
    }

    private fun supertypes(c: Class<*>): Set<Class<*>> {
        val out = LinkedHashSet<Class<*>>()
        val todo = ArrayDeque(listOf(c, boxed(c)))
        while (todo.isNotEmpty()) {
            val x = todo.removeFirst()
            if (out.add(x)) {
                x.superclass?.let(todo::add)
                todo.addAll(x.interfaces)
            }
        }
        return out + Any::class.java
    }

    private fun propertyName(m: Method): String =
        if (m.parameterCount == 0 && m.name.length > 3 && m.name.startsWith("get") && m.name[3].isUpperCase()) {
            m.name[3].lowercase() + m.name.substring(4)
        } else {
            m.name
        }

    private fun boxed(c: Class<*>): Class<*> = if (c.isPrimitive) MethodType.methodType(c).wrap().returnType() else c

    /** "kotlin.collections.List<kotlin.Int>?" -> java.util.List; a nested class's dots tried as '$'. */
    private fun jvmClass(kotlinType: String): Class<*>? {
        val raw = kotlinType.substringBefore('<').removeSuffix("?")
        val mapped = KOTLIN_TO_JAVA[raw] ?: raw
        return generateSequence(mapped) { n -> n.lastIndexOf('.').takeIf { it > 0 }?.let { n.substring(0, it) + '$' + n.substring(it + 1) } }
            .firstNotNullOfOrNull { n -> runCatching { Class.forName(n, false, repl.cellLoader()) }.getOrNull() }
    }

    private companion object {
        val WORD = Regex("""\w*$""")
        val KEYWORDS = listOf("val", "var", "fun", "class", "object", "interface", "if", "else", "when", "while", "for",
            "return", "import", "true", "false", "null")
        val KOTLIN_TO_JAVA = mapOf(
            "kotlin.Any" to "java.lang.Object", "kotlin.String" to "java.lang.String", "kotlin.CharSequence" to "java.lang.CharSequence",
            "kotlin.Int" to "java.lang.Integer", "kotlin.Long" to "java.lang.Long", "kotlin.Double" to "java.lang.Double",
            "kotlin.Float" to "java.lang.Float", "kotlin.Boolean" to "java.lang.Boolean", "kotlin.Char" to "java.lang.Character",
            "kotlin.Short" to "java.lang.Short", "kotlin.Byte" to "java.lang.Byte",
            "kotlin.collections.List" to "java.util.List", "kotlin.collections.MutableList" to "java.util.List",
            "kotlin.collections.Set" to "java.util.Set", "kotlin.collections.MutableSet" to "java.util.Set",
            "kotlin.collections.Map" to "java.util.Map", "kotlin.collections.MutableMap" to "java.util.Map",
            "kotlin.collections.Collection" to "java.util.Collection", "kotlin.collections.Iterable" to "java.lang.Iterable",
            "kotlin.collections.ArrayList" to "java.util.ArrayList", "kotlin.collections.HashMap" to "java.util.HashMap")
    }
}

package dev.sharedarrays.notebook;

import dev.sharedarrays.notebook.internal.CapturingExecutionControl;
import dev.sharedarrays.notebook.internal.CellKernel;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * A Java kernel: each cell is split into JShell snippets and run in this JVM; the value of a cell
 * that ends in an expression is its result ({@link CellKernel} shows it). An interrupt stops the
 * running cell (JShell's stop: a check on every loop and method entry of the cell's code, and a
 * thread interrupt for sleeps and waits).
 */
final class JShellKernel extends CellKernel {
    /** What every cell can use without imports. */
    static final List<String> IMPORTS = List.of(
            "import dev.sharedarrays.*;",
            "import java.nio.file.*;",
            "import java.time.Duration;",
            "import static dev.sharedarrays.notebook.Notebook.*;");

    private final JShell shell;
    private volatile boolean interrupted;
    /** The cell line each snippet of the running cell starts on (snippet id -> line), for its stack frames. */
    private final Map<String, Integer> snippetLines = new HashMap<>();

    JShellKernel(String version) {
        super("shared-arrays Java", version,
                new LanguageInfo.Builder("java").version(Runtime.version().toString()).mimetype("text/x-java-source")
                        .fileExtension(".jshell").pygments("java").codemirror("text/x-java").build());
        shell = JShell.builder()
                .executionEngine(new CapturingExecutionControl.Provider(), Map.of())
                .build();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                shell.addToClasspath(entry);
            }
        }
        for (String i : IMPORTS) {
            shell.eval(i);
        }
    }

    /** Runs every snippet of the cell in turn; the value of the last, if it is an expression. */
    @Override
    public Object evalRaw(String source) {
        interrupted = false;
        snippetLines.clear();
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String rest = source;
        Object value = null;
        while (!rest.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            if (info.completeness() == SourceCodeAnalysis.Completeness.DEFINITELY_INCOMPLETE) {
                throw new IllegalArgumentException("incomplete code at the end of the cell: " + rest.strip());
            }
            String snippet = info.completeness() == SourceCodeAnalysis.Completeness.EMPTY ? "" : info.source();
            if (info.remaining().length() >= rest.length() && (snippet == null || snippet.isBlank())) {
                break; // nothing consumed: only comments or blanks are left
            }
            int line = lineOf(source, source.length() - rest.length() + leadingBlank(rest));
            rest = info.remaining();
            if (snippet == null || snippet.isBlank()) {
                if (info.completeness() == SourceCodeAnalysis.Completeness.UNKNOWN) {
                    throw new CompileError(diagnostics(rest, shell.eval(rest), lineOf(source, source.length() - rest.length())));
                }
                continue;
            }
            value = run(snippet, line);
        }
        return value;
    }

    /** The 1-based line of offset {@code at} in {@code s}. */
    private static int lineOf(String s, int at) {
        int line = 1;
        for (int i = 0; i < at && i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static int leadingBlank(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private Object run(String snippet, int line) {
        List<SnippetEvent> events = shell.eval(snippet);
        Object value = null;
        for (SnippetEvent e : events) {
            if (e.causeSnippet() != null) {
                continue; // an update of a dependent snippet, not this one
            }
            snippetLines.put(e.snippet().id(), line);
            if (e.status() == Snippet.Status.REJECTED) {
                throw new CompileError(diagnostics(snippet, events, line));
            }
            if (e.exception() instanceof UnresolvedReferenceException u) {
                throw new IllegalStateException("unresolved: " + u.getSnippet().source());
            }
            if (e.exception() != null) {
                throw new CellException(e.exception());
            }
            if (interrupted) {
                throw new CellException("the cell was interrupted");
            }
            Snippet s = e.snippet();
            boolean expression = s.kind() == Snippet.Kind.EXPRESSION
                    || (s instanceof VarSnippet && s.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND);
            value = expression && e.value() != null ? CapturingExecutionControl.lastValue() : null;
        }
        return value;
    }

    /** Each error as "line L, column C: message" in the cell's lines (the snippet starts on line {@code first}). */
    private String diagnostics(String snippet, List<SnippetEvent> events, int first) {
        List<String> lines = new ArrayList<>();
        for (SnippetEvent e : events) {
            for (Diag d : shell.diagnostics(e.snippet()).collect(Collectors.toList())) {
                if (d.isError()) {
                    int at = (int) Math.max(0, Math.min(d.getStartPosition(), snippet.length()));
                    int lineStart = snippet.lastIndexOf('\n', at - 1) + 1;
                    lines.add("line " + (first + lineOf(snippet, at) - 1) + ", column " + (at - lineStart + 1) + ": "
                            + d.getMessage(null));
                }
            }
        }
        return lines.isEmpty() ? "cannot compile: " + snippet.strip() : String.join("\n", lines);
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        return null;
    }

    @Override
    public ReplacementOptions complete(String code, int at) {
        int[] anchor = new int[1];
        List<String> options = shell.sourceCodeAnalysis().completionSuggestions(code, at, anchor).stream()
                .map(SourceCodeAnalysis.Suggestion::continuation).distinct().collect(Collectors.toList());
        return options.isEmpty() ? null : new ReplacementOptions(options, anchor[0], at);
    }

    @Override
    public String isComplete(String code) {
        return switch (shell.sourceCodeAnalysis().analyzeCompletion(code).completeness()) {
            case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE -> "";
            case UNKNOWN -> IS_COMPLETE_BAD;
            default -> IS_COMPLETE_YES;
        };
    }

    @Override
    public void interrupt() {
        interrupted = true;
        shell.stop();
    }

    @Override
    protected Failure describe(Exception e) {
        if (e instanceof CompileError c) {
            List<String> lines = new ArrayList<>(List.of("compile error:"));
            lines.addAll(List.of(c.getMessage().split("\n")));
            return new Failure("CompileError", c.getMessage(), lines);
        }
        if (e instanceof CellException c && c.getCause() instanceof jdk.jshell.JShellException je) {
            List<String> lines = new ArrayList<>();
            String type = je instanceof EvalException ee ? ee.getExceptionClassName() : je.getClass().getName();
            for (Throwable t = je; t != null; t = t.getCause()) {
                String name = t instanceof EvalException ee ? ee.getExceptionClassName() : t.getClass().getName();
                lines.add((t == je ? "" : "Caused by: ") + name + (t.getMessage() == null ? "" : ": " + t.getMessage()));
                lines.addAll(cellFrames(t.getStackTrace()));
            }
            return new Failure(type, je.getMessage() == null ? "" : je.getMessage(), lines);
        }
        if (e instanceof CellException c) {
            return new Failure("Interrupted", c.getMessage(), List.of(c.getMessage()));
        }
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return new Failure(e.getClass().getSimpleName(), m, List.of(e.getClass().getSimpleName() + ": " + m));
    }

    /**
     * The frames down to the cell's last, the cell's as "at cell line L" (JShell names a snippet's
     * frames after its id, "#12", with lines within the snippet); the kernel's own frames below
     * the cell are dropped.
     */
    private List<String> cellFrames(StackTraceElement[] frames) {
        int last = -1;
        for (int i = 0; i < frames.length; i++) {
            if (isCell(frames[i])) {
                last = i;
            }
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < (last < 0 ? frames.length : last + 1); i++) {
            StackTraceElement f = frames[i];
            if (isCell(f)) {
                Integer start = f.getFileName() == null ? null : snippetLines.get(f.getFileName().substring(1));
                out.add("    at cell" + (start == null || f.getLineNumber() < 1 ? "" : " line " + (start + f.getLineNumber() - 1)));
            } else {
                out.add("    at " + f);
            }
        }
        return out;
    }

    /** A frame of a snippet: JShell names its file after the snippet's id ("#12"), its class "REPL.$JShell$..." or "". */
    private static boolean isCell(StackTraceElement f) {
        return f.getClassName().startsWith("REPL.") || (f.getFileName() != null && f.getFileName().startsWith("#"));
    }

    /** A cell that does not compile: each error with its line and column in the cell. */
    static final class CompileError extends RuntimeException {
        CompileError(String message) {
            super(message);
        }
    }

    /** A cell that threw, or was interrupted. */
    static final class CellException extends RuntimeException {
        CellException(jdk.jshell.JShellException cause) {
            super((cause instanceof EvalException ee ? ee.getExceptionClassName() : cause.getClass().getName()) + ": "
                    + cause.getMessage(), cause);
        }

        CellException(String message) {
            super(message);
        }
    }
}

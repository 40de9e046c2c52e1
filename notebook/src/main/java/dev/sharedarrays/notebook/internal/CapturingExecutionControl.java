package dev.sharedarrays.notebook.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import jdk.jshell.execution.LocalExecutionControl;
import jdk.jshell.spi.ExecutionControl;
import jdk.jshell.spi.ExecutionControlProvider;
import jdk.jshell.spi.ExecutionEnv;

/**
 * JShell's in-process execution (the cells run in the kernel's JVM, so its flags and shutdown hook
 * apply to them, and {@code stop()} interrupts a running cell) that also keeps the value of the
 * last snippet as an object: JShell itself hands back only its text, and a picture needs the array.
 */
public final class CapturingExecutionControl extends LocalExecutionControl {
    /** The snippet method {@link #trampoline()} runs; one kernel per JVM, one cell at a time. */
    private static volatile Method target;
    private static volatile Object last;

    /** The value of the snippet run last (null for a statement or a null value). */
    public static Object lastValue() {
        return last;
    }

    @Override
    protected String invoke(Method doitMethod) throws Exception {
        target = doitMethod;
        last = null;
        return super.invoke(CapturingExecutionControl.class.getDeclaredMethod("trampoline"));
    }

    /**
     * Runs the snippet; its exception is rethrown as is, so JShell reports it (and a stop) as its
     * own. Public: JShell's executor calls it reflectively.
     */
    public static Object trampoline() throws Throwable {
        try {
            Object v = target.invoke(null);
            last = v;
            return v;
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Registers this execution engine with JShell. */
    public static final class Provider implements ExecutionControlProvider {
        @Override
        public String name() {
            return "sharedarrays-local";
        }

        @Override
        public ExecutionControl generate(ExecutionEnv env, Map<String, String> parameters) {
            return new CapturingExecutionControl();
        }
    }
}

import Foundation

/// The return addresses of the current thread's stack, innermost first (Foundation's `backtrace()` wrapper).
@inline(never)
func captureReturnAddresses() -> [UInt] {
    Thread.callStackReturnAddresses.map { $0.uintValue }
}

/// A function whose own frame appears in the stack it returns, and the line of the call that captures it.
@inline(never)
func symbolicationProbeCapturingStack() -> (addresses: [UInt], callLine: Int) {
    let callLine = #line + 1
    let addresses = captureReturnAddresses()
    return (addresses, callLine)
}

/// A function with a known name whose entry address a test takes through a C function pointer.
@inline(never)
func symbolicationProbeTarget(_ value: Int32) -> Int32 {
    value &* 3 &+ 1
}

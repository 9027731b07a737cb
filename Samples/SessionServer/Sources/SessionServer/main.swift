// A request loop with a session cache: requests for /home, /profile and /cart come from 50 users,
// each served from the user's cached session (the cache keeps the 16 most recent sessions, so
// sessions are made and dropped all the time); every 40th request is /export, whose handler leaks:
// the export job's completion handler captures the job itself.
//
//     SessionServer [--seconds S] [--signal-self [--signal-at N]] [--terminate] [--metrics-port P [--port-file F]]
//
// Serves requests for S seconds (default 2; one every millisecond), then exits normally.
// --signal-self: after 500 requests (--signal-at N: N), sends itself SIGUSR2 (leakgraph run's
// check signal).
// --terminate: ends by sending itself SIGTERM instead of returning from main.
// --metrics-port P: serves the leak checks as Prometheus text at http://127.0.0.1:P/metrics (0: a port
// the system picks), each scrape running one check (LeakMetrics.swift); prints the address, and with
// --port-file F writes the port number to F once it listens. Without it, LeakGraph is linked but
// not started: the program is checked only from the outside.

import Foundation

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 2
let signalSelf = arguments.contains("--signal-self")
let signalAt = arguments.firstIndex(of: "--signal-at").flatMap { Int(arguments[$0 + 1]) } ?? 500
let terminate = arguments.contains("--terminate")
let metricsPort = arguments.firstIndex(of: "--metrics-port").flatMap { UInt16(arguments[$0 + 1]) }
let portFile = arguments.firstIndex(of: "--port-file").map { arguments[$0 + 1] }

// First thing: recording starts here, so the sessions and jobs below are tracked.
var leakMetrics: LeakMetrics?
if let metricsPort {
    do {
        let metrics = try LeakMetrics(port: metricsPort)
        leakMetrics = metrics
        FileHandle.standardOutput.write(Data("metrics at http://127.0.0.1:\(metrics.endpoint.port)/metrics\n".utf8))
        if let portFile {
            try "\(metrics.endpoint.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        }
    } catch {
        FileHandle.standardError.write(Data("SessionServer: /metrics cannot be served: \(error)\n".utf8))
        exit(2)
    }
}

let cache = SessionCache()
let routes = ["/home", "/profile", "/cart", "/cart"]
let end = Date().addingTimeInterval(seconds)
var served = 0
var signalled = false
while Date() < end {
    let route = served % 40 == 39 ? "/export" : routes[served % routes.count]
    let response = handle(Request(route: route, user: "user\(served % 50)"), cache: cache)
    if served == signalAt, signalSelf, !signalled {
        signalled = true
        kill(getpid(), SIGUSR2)
    }
    _ = response
    served += 1
    usleep(1_000)
}
print("served \(served) requests")
if terminate {
    // Whoever started the program may have blocked SIGTERM (a test runner's thread); take it as a
    // shell's `kill` would.
    var terminateSignal = sigset_t()
    sigemptyset(&terminateSignal)
    sigaddset(&terminateSignal, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &terminateSignal, nil)
    kill(getpid(), SIGTERM)
    sleep(10)
}

import FoundationEssentials
import LeakGraphRecording
import LeakGraphReport

extension LeakMonitor {
    /// One check: walk, and when there are candidates wait, walk again and keep the confirmed cycles;
    /// then the ones no earlier check reported. Records it in the state; reports nothing. Creation
    /// stacks are symbolized once over the monitor's life (``symbolizedStacks``): the confirmation
    /// walk and later checks take them from the cache.
    ///
    /// Candidates that are leaks the previous check confirmed, found again unchanged (every object of
    /// each cycle at the same address, with the same retain count and references:
    /// `LeakReport/confirmed(by:)` against those confirmed leaks), are not read again: they were
    /// proven by two reads already, and a leaked object cannot change. The other candidates are
    /// confirmed: their objects re-read alone (`LeakChecker.capturedGraph(rereading:steps:)`: the
    /// freeze costs those objects, not the heap, nor the leaks found before), or, with the orphan
    /// scan, by a second whole walk.
    func runCheck() -> LeakMonitorCheck {
        let date = Date()
        guard Recorder.isInstalled else {
            return finish(
                skipped: "recording is not running (start the monitor, or LeakChecker.startRecording())", date: date)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let residentBefore = LeakCheckSteps.processResidentBytes()
        var program = configuration.program ?? Self.runningProgram()
        program.running = true
        // With a snapshot folder, the first walk also gives a heap snapshot.
        var capture: SnapshotCapture?
        // The previous check's confirmed leaks: the child leaves out those it finds unchanged.
        let knownLeaks = state.withLock { $0.knownLeaks }
        let first = LeakChecker.measuredCheck(
            program: program, orphanScan: configuration.options.scansForOrphans, stacks: symbolizedStacks,
            resolve: resolveStack,
            whileFrozen: configuration.snapshotDirectory == nil
                ? nil : { capture = SnapshotCapture.take($0, holders: true) },
            childWalkTimeout: configuration.childWalkTimeout, symbolizesInChild: configuration.symbolizesInChild,
            knownLeaks: knownLeaks, keepsLeakedGraph: true)
        var pauses = [first.pause]
        var leaks = first.report.keepingCycles { !configuration.options.ignores($0, of: first.report) }
        let candidates = leaks.cycles.count
        let confirmedBefore = state.withLock { $0.confirmedLeaks }
        // The child compared the known leaks already: the cycles it left out whole are those found unchanged
        // (no object it sent references one it left out, so no other cycle joins them). Without a child's
        // comparison, each candidate is compared with the confirmed leaks here.
        let known =
            first.leftOutKnown.isEmpty
            ? confirmedBefore.map { leaks.confirmed(by: $0) }
            : leaks.keepingCycles { cycle in
                (cycle.members + cycle.holds).allSatisfy { id in
                    leaks.leaks.indices.contains(id)
                        && UInt64(leaks.leaks[id].address.dropFirst(2), radix: 16).map {
                            first.leftOutKnown.contains(KnownLeaks.stored($0))
                        } == true
                }
            }
        let knownLeaksOnly = candidates > 0 && known?.cycles.count == candidates
        var confirmation = LeakMonitorCheck.Confirmation.none
        var rereadObjects = 0
        if knownLeaksOnly, let known {
            leaks = known
            confirmation = .known
        } else if !leaks.cycles.isEmpty {
            PlainThreads.sleep(for: configuration.confirmationDelay)
            // Cycles the previous check confirmed, found again unchanged, are proven already (two reads, and
            // a leaked object cannot change): only the others are confirmed, with every cycle holding a
            // reference into them (`keepingCycles` keeps those: their proof counts that reference). A new
            // strong reference into a known cycle changes its retain count, so a new cycle is never taken
            // for a known one.
            let proven = Set(known.map { known in known.cycles.map { Self.identity(of: $0, in: known) } } ?? [])
            let unproven =
                proven.isEmpty ? leaks : leaks.keepingCycles { !proven.contains(Self.identity(of: $0, in: leaks)) }
            // Their objects re-read alone (LeakChecker.capturedGraph(rereading:steps:)), unless the orphan
            // scan runs: an orphan is proven by a scan of the whole process.
            let rereading =
                configuration.options.scansForOrphans
                ? nil : unproven.leaks.compactMap { UInt($0.address.dropFirst(2), radix: 16) }
            confirmation = rereading == nil ? .walk : .reread
            rereadObjects = rereading?.count ?? 0
            let second = LeakChecker.measuredCheck(
                program: program, orphanScan: configuration.options.scansForOrphans,
                knownOrphans: unproven.orphanAddresses,
                stacks: symbolizedStacks, resolve: resolveStack, rereading: rereading)
            pauses.append(second.pause)
            let confirmed = unproven.confirmed(by: second.report)
            let kept = proven.union(confirmed.cycles.map { Self.identity(of: $0, in: confirmed) })
            leaks = leaks.keepingCycles { kept.contains(Self.identity(of: $0, in: leaks)) }
        }
        let (newLeaks, newKeys) = state.withLock { state in
            state.confirmedLeaks = leaks
            state.knownLeaks = first.storedLeakedGraph.map { graph in
                KnownLeaks(
                    storedGraph: graph.keeping(
                        addresses: Set(
                            leaks.leaks.compactMap { UInt64($0.address.dropFirst(2), radix: 16).map(KnownLeaks.stored) }
                        )))
            }
            var newKeys: [String] = []
            for cycle in leaks.cycles {
                let key = Self.key(of: cycle, in: leaks)
                if state.firstSeen[key] == nil {
                    state.firstSeen[key] = date
                    newKeys.append(key)
                }
            }
            let keys = Set(newKeys)
            let newLeaks =
                keys.isEmpty
                ? leaks.keepingCycles { _ in false }
                : leaks.keepingCycles { keys.contains(Self.key(of: $0, in: leaks)) }
            return (newLeaks, newKeys)
        }
        var check = LeakMonitorCheck(
            number: 0, date: date, leaks: leaks, newLeaks: newLeaks, newFingerprints: newKeys,
            unconfirmedCycles: candidates - leaks.cycles.count, pauses: pauses,
            duration: clock.now - start,
            liveObjects: first.report.summary.liveObjects + first.report.summary.leakedObjects)
        check.liveBytes = first.steps.liveBytes
        check.residentBytesBefore = residentBefore
        check.peakResidentBytes = LeakCheckSteps.processPeakResidentBytes()
        check.walkPeakResidentBytes = first.steps.walkPeakResidentBytes
        check.knownLeaksOnly = knownLeaksOnly
        check.confirmation = confirmation
        check.rereadObjects = rereadObjects
        check.knownObjectsLeftOut = first.steps.knownLeftOut
        check.walk = first.steps.walkedInChild ? .child : .frozen
        check.childWalkFailure = first.steps.childWalkFailure
        check.stacksSymbolizedInChild = first.steps.symbolizedInChild
        var recorded = record(check)
        if let capture, let directory = configuration.snapshotDirectory {
            recorded.snapshotPath = writeSnapshot(
                capture, program: program, date: date, check: recorded.number, to: directory)
            state.withLock { $0.lastCheck?.snapshotPath = recorded.snapshotPath }
        }
        return recorded
    }

    /// A root cycle's identity within one check's report: the addresses of its objects (members and the
    /// objects it holds), ascending. Unlike its fingerprint, which the repeats of one leak share, it names
    /// this cycle alone.
    static func identity(of cycle: LeakReport.Cycle, in report: LeakReport) -> [String] {
        (cycle.members + cycle.holds).compactMap { report.leaks.indices.contains($0) ? report.leaks[$0].address : nil }
            .sorted()
    }

    /// Finishes the snapshot of a check and writes it into `directory`, removing the oldest beyond
    /// ``LeakMonitorConfiguration/keptSnapshots``; returns its path (`nil`, logged, when it could not
    /// be written).
    private func writeSnapshot(
        _ capture: SnapshotCapture, program: LeakReport.Program, date: Date, check: Int, to directory: String
    ) -> String? {
        let snapshot = HolderScan.checking {
            Recorder.ignoringCurrentThread { capture.finish(program: program, executablePath: nil, date: date) }
        }
        let folder = ReportFolder(
            path: directory, kept: configuration.keptSnapshots, suffix: "." + HeapSnapshotFile.pathExtension)
        do {
            let path = try folder.place(date: date, check: check) { path in
                try HeapSnapshotFile.write(snapshot, to: path)
            }
            configuration.logger.info("LeakGraph: heap snapshot written", metadata: ["leakgraph.snapshot": "\(path)"])
            return path
        } catch {
            configuration.logger.error("LeakGraph: the heap snapshot could not be written to \(directory): \(error)")
            return nil
        }
    }

    /// A skipped check, recorded.
    func finish(skipped reason: String, date: Date) -> LeakMonitorCheck {
        let empty = LeakReport(
            program: configuration.program ?? Self.runningProgram(),
            summary: LeakReport.Summary(
                trackedObjects: 0, liveObjects: 0, leakedObjects: 0, leakedBytes: 0, rootCycles: 0),
            leaks: [], references: [], cycles: [])
        let check = LeakMonitorCheck(
            number: 0, date: date, skipReason: reason, leaks: empty, newLeaks: empty, newFingerprints: [], pauses: [],
            duration: .zero, liveObjects: 0)
        let recorded = record(check)
        configuration.logger.notice("LeakGraph: leak check \(recorded.number) skipped: \(reason)")
        writeRecord(of: recorded)
        notifyObservers(recorded)
        return recorded
    }

    /// Numbers `check` and counts it in the state.
    private func record(_ check: LeakMonitorCheck) -> LeakMonitorCheck {
        state.withLock { state in
            var check = check
            check.number = state.checksRun + state.checksSkipped + 1
            if check.isSkipped {
                state.checksSkipped += 1
            } else {
                state.checksRun += 1
            }
            state.unconfirmedCycles += check.unconfirmedCycles
            state.longestPause = max(state.longestPause, check.pause)
            state.lastCheck = check
            return check
        }
    }

    /// The running executable and its arguments.
    static func runningProgram() -> LeakReport.Program {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments
            .first ?? ""
        return LeakReport.Program(path: path, arguments: Array(CommandLine.arguments.dropFirst()), exitStatus: 0)
    }
}

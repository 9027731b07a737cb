import LeakGraphRender
import LeakGraphReport
import Testing

// Issue 14: the app samples — FindMyBike, NeighBird and PhotoTagger — compiled from their packages'
// sources at -Onone and -O and run under `leakgraph run` in their `leak` and `fixed` modes, with the
// exact report each leaking mode must give and no leak at all for each fixed mode.

@Suite("Samples: FindMyBike, NeighBird, PhotoTagger", .timeLimit(.minutes(10)))
struct AppSampleTests {
    @Test("FindMyBike: MainViewController ⇄ BikeRegistry through a strong delegate; the editor's observer kept by the shared centre, shown by --why; fixed: clean",
          arguments: Optimization.allCases)
    func findMyBike(_ optimization: Optimization) async throws {
        let program = try await SampleBuilds.shared.executable("FindMyBike", optimization).path
        let options = ["--why", "EditBikeViewController"]
        async let leaking = LeakgraphRun.run(program, ["leak"], options: options)
        let fixed = try await LeakgraphRun.run(program, ["fixed"], options: options)
        let leak = try await leaking

        let expected = LeakExpectation([
            CycleShape(
                counting: [
                    "FindMyBike.MainViewController": 1, "FindMyBike.BikeRegistry": 1, "FindMyBike.RangingTableViewController": 1,
                ],
                holds: [
                    "FindMyBike.Bike": 2, "FindMyBike.ProximityMonitor": 1, "(arrayStorage)": 2, "(dictionaryStorage)": 1,
                    "(closureContext)": 1,
                ]
            )
        ])
        let report = try #require(expectLeaks(leak, expected, program: program, mode: "leak"))
        let cycle = try #require(report.cycles.first)
        #expect(cycle.suspect?.label == "delegate")
        #expect(cycle.suspect.map { report.leaks[$0.from].type } == "FindMyBike.BikeRegistry")
        #expect(cycle.suspect.map { report.leaks[$0.to].type } == "FindMyBike.MainViewController")
        #expect(cycle.suspect?.hint.contains("weak var delegate") == true)
        #expect(cycle.otherCuts == nil)
        #expect(leak.text?.contains("Suspect: BikeRegistry.delegate") == true, "\(leak.text ?? "")")
        #expect(leak.result.standardOutput.contains("0 of 3 view controllers were freed"), "\(leak.result.summary)")

        // The editor's observer is never removed: alive, held from the shared AppEventCenter, not leaked.
        let why = try #require(report.why)
        #expect(why.map(\.matched) == [1])
        #expect(why.map(\.leaked) == [0])
        let chain = try #require(why.first?.chains.first)
        #expect(chain.holder.kind == .global)
        #expect(chain.summaryLine == "static AppEventCenter.shared → observers[0] → handler (closure) → EditBikeViewController")

        expectNoLeaks(fixed, program: program, mode: "fixed")
        #expect(fixed.report?.why?.map(\.matched) == [0])
        #expect(fixed.result.standardOutput.contains("3 of 3 view controllers were freed"), "\(fixed.result.summary)")
    }

    @Test("NeighBird: one root cycle through ChatViewController, two cuts (the slide control's strong delegate, the message observer closure); fixed: clean; task: the refresh Task waiting on a stream only the screen resumes is a cycle member",
          arguments: Optimization.allCases)
    func neighBird(_ optimization: Optimization) async throws {
        let program = try await SampleBuilds.shared.executable("NeighBird", optimization).path
        async let leaking = LeakgraphRun.run(program, ["leak"])
        async let taskHeld = LeakgraphRun.run(program, ["task"])
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        let leak = try await leaking

        // The refresh task waiting forever on a stream only the screen can resume: screen → task → screen.
        let taskRun = try await taskHeld
        let task = try #require(taskRun.report, "\(taskRun.result.summary)")
        #expect(task.cycles.count == 1)
        let taskCycle = try #require(task.cycles.first)
        #expect(taskCycle.members.map { task.leaks[$0].type }.contains("NeighBird.ChatViewController"))
        #expect(taskCycle.members.contains { task.leaks[$0].kind == "task" }, "the Task is a member of the cycle")
        #expect(task.references.contains { $0.label == "refreshTask (Task)" })
        #expect(task.references.contains { $0.label == "memberUpdates (resumes Task)" })

        let expected = LeakExpectation([
            CycleShape(
                counting: ["NeighBird.ChatViewController": 1, "NeighBird.MessageFeed": 1, "NeighBird.SlideControl": 1],
                holds: [
                    "NeighBird.User": 3, "NeighBird.Group": 1, "NeighBird.Message": 2, "NeighBird.TextMessageHandler": 1,
                    "NeighBird.SightingMessageHandler": 1, "(arrayStorage)": 4, "(other)": 2,
                ]
            )
        ])
        let report = try #require(expectLeaks(leak, expected, program: program, mode: "leak"))
        let cycle = try #require(report.cycles.first)
        #expect(cycle.suspect?.label == "delegate")
        #expect(cycle.suspect.map { report.leaks[$0.from].type } == "NeighBird.SlideControl")
        #expect(cycle.otherCuts?.map(\.label) == ["onMessage (closure)"])
        #expect(cycle.otherCuts?.first?.hint.contains("[weak self]") == true)
        #expect(leak.text?.contains("Suspect: SlideControl.delegate") == true, "\(leak.text ?? "")")
        #expect(leak.text?.contains("Also cut: MessageFeed.onMessage (closure)") == true)
        #expect(leak.result.standardOutput.contains("0 of 1 chat screens were freed"), "\(leak.result.summary)")

        expectNoLeaks(fixed, program: program, mode: "fixed")
        #expect(fixed.result.standardOutput.contains("1 of 1 chat screens were freed"), "\(fixed.result.summary)")
    }

    @Test("PhotoTagger: one root cycle per photo, TaggingJob ⇄ ClassificationStage through a stored completion closure; fixed: clean",
          arguments: Optimization.allCases)
    func photoTagger(_ optimization: Optimization) async throws {
        let program = try await SampleBuilds.shared.executable("PhotoTagger", optimization).path
        async let leaking = LeakgraphRun.run(program, ["leak"])
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        let leak = try await leaking

        let perPhoto = CycleShape(
            counting: ["PhotoTagger.TaggingJob": 1, "PhotoTagger.ClassificationStage": 1],
            holds: [
                "PhotoTagger.Photo": 1, "PhotoTagger.DecodedImage": 1, "PhotoTagger.FaceDetectionStage": 1,
                "(arrayStorage)": 2, "(closureContext)": 1,
            ]
        )
        let report = try #require(expectLeaks(leak, LeakExpectation(perPhoto, times: 3), program: program, mode: "leak"))
        #expect(report.cycles.map { $0.suspect?.label } == Array(repeating: "completion (closure)", count: 3))
        #expect(report.cycles.allSatisfy { $0.otherCuts == nil })
        #expect(Set(report.cycles.compactMap(\.fingerprint)).count == 1, "the three cycles have one shape, so one fingerprint")
        #expect(leak.text?.contains("Suspect: ClassificationStage.completion (closure)") == true, "\(leak.text ?? "")")
        #expect(leak.result.standardOutput.contains("0 of 3 tagging jobs were freed"), "\(leak.result.summary)")

        expectNoLeaks(fixed, program: program, mode: "fixed")
        #expect(fixed.result.standardOutput.contains("3 of 3 tagging jobs were freed"), "\(fixed.result.summary)")
    }
}

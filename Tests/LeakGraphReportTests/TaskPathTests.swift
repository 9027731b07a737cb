import Foundation
import LeakGraphModel
import Testing

// The path steps of tasks: how they read, what is derived from them, and their JSON.

@Suite("Task path steps")
struct TaskPathTests {
    @Test("a handle, a task's closure, the retain a resumer holds, a task nothing can resume")
    func text() {
        let handle: ReferencePath = [.property("refreshTask"), .optionalPayload, .taskHandle]
        #expect(handle.text == "refreshTask (Task)")
        #expect(handle.propertyName == "refreshTask")
        #expect(handle.weakCandidate == nil)  // a Task is a struct: no `weak var` holds it
        #expect(!handle.isClosure)

        let closure: ReferencePath = [.taskClosure]
        #expect(closure.text == "closure")
        #expect(closure.propertyName == "closure")

        let resumer: ReferencePath = [.property("continuation"), .storage, .resumesTask]
        #expect(resumer.text == "continuation (resumes Task)")
        #expect(resumer.propertyName == "continuation")
        #expect(!resumer.isTaskSuspendedForever)
        #expect(resumer.isTaskResumption)

        let stuck: ReferencePath = [.suspendedForever]
        #expect(stuck.text == "suspended, nothing can resume it")
        #expect(stuck.genericText == stuck.text)
        #expect(stuck.isTaskSuspendedForever)
        #expect(stuck.propertyName.isEmpty)
    }

    @Test("the steps survive a JSON round trip with their kinds")
    func json() throws {
        let path: ReferencePath = [.property("job"), .taskHandle, .taskClosure, .resumesTask, .suspendedForever]
        let data = try JSONEncoder().encode(path)
        let text = String(decoding: data, as: UTF8.self)
        for kind in ["taskHandle", "taskClosure", "resumesTask", "suspendedForever"] {
            #expect(text.contains("\"\(kind)\""), "\(text)")
        }
        #expect(try JSONDecoder().decode(ReferencePath.self, from: data) == path)
    }
}

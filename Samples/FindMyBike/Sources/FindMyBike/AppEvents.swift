/// The app lifecycle events a view controller can observe (UIApplication's notifications).
enum AppEvent: String {
    case didEnterBackground
    case willEnterForeground
}

/// One registered observer; the value `addObserver` returns is what `removeObserver` takes back.
final class AppEventObservation {
    let event: AppEvent
    let handler: () -> Void

    init(event: AppEvent, handler: @escaping () -> Void) {
        self.event = event
        self.handler = handler
    }
}

/// A small NotificationCenter: a process-wide list of observer closures, as `NotificationCenter.default`
/// is. Whatever an observer closure captures stays alive until the observer is removed.
final class AppEventCenter {
    nonisolated(unsafe) static let shared = AppEventCenter()

    private var observers: [AppEventObservation] = []

    func addObserver(for event: AppEvent, _ handler: @escaping () -> Void) -> AppEventObservation {
        let observation = AppEventObservation(event: event, handler: handler)
        observers.append(observation)
        return observation
    }

    func removeObserver(_ observation: AppEventObservation) {
        observers.removeAll { $0 === observation }
    }

    func post(_ event: AppEvent) {
        for observation in observers where observation.event == event {
            observation.handler()
        }
    }
}

// FindMyBike: the object graph of a bike-finder iOS app, in plain Swift.
//
//     FindMyBike [leak]   the main view controller and the bike registry hold each other (a strong
//                         `BikeChangedDelegate`): both leak, with the ranging table and proximity monitor
//                         they hold. The bike editor forgets `super.viewDidDisappear()`, so its app-event
//                         observer is never removed: the shared AppEventCenter keeps it alive (no leak for
//                         a reachability check; `leakgraph run --why EditBikeViewController` shows why).
//     FindMyBike fixed    `weak var delegate`, and the editor calls `super.viewDidDisappear()`:
//                         everything is freed.

/// Launches the app's screens, ranges the bikes, edits one, goes to the background and closes the main
/// screen. Returns how many changes the main screen saw.
@inline(never)
func runApp() -> Int {
    let registry = BikeRegistry(bikes: [
        Bike(serial: "FMB-0001", name: "Road bike"),
        Bike(serial: "FMB-0002", name: "Cargo bike"),
        Bike(serial: "FMB-0003", name: "Folding bike"),
    ])
    let main = MainViewController(registry: registry)
    main.viewDidLoad()
    main.viewWillAppear()
    main.ranging.viewWillAppear()
    main.ranging.startRanging()

    let editor = main.showEditor(for: registry.bikes[1])
    editor.draftName = "Cargo bike (blue)"
    main.dismissEditor()

    AppEventCenter.shared.post(.didEnterBackground)
    main.ranging.viewDidDisappear()
    main.viewDidDisappear()
    return main.changes
}

let changes = runApp()
print("FindMyBike (\(mode.rawValue)): \(changes) change saved; \(freedViewControllers) of 3 view controllers were freed.")

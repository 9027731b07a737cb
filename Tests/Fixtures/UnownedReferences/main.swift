// Row 18 of LEAK-PATTERNS: `unowned`, `unowned(unsafe)` and `Unmanaged` references are never strong.
// Account.profile → Profile strongly; Profile points back with all three non-strong kinds.
// leak: Profile also has a strong `owner` back to the Account — 2 leaked objects, 1 root cycle; the
// references between them are strong ×2 (profile, owner), unowned ×1 (account) and unmanaged ×2
// (unsafeAccount, unmanagedAccount).
// fixed: no strong back reference: a cycle closed only by unowned/unmanaged references is no leak.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

// MARK: - The shape

final class Account {
    var profile: Profile?
    var balance = 10
}

final class Profile {
    unowned var account: Account
    unowned(unsafe) var unsafeAccount: Account
    var unmanagedAccount: Unmanaged<Account>
    var owner: Account?

    init(account: Account) {
        self.account = account
        self.unsafeAccount = account
        self.unmanagedAccount = Unmanaged.passUnretained(account)
    }
}

@inline(never)
func makeAccount() {
    let account = Account()
    let profile = Profile(account: account)
    watch(account)
    watch(profile)
    account.profile = profile
    if mode == .leak {
        profile.owner = account
    }
}

makeAccount()
finish(expectingAlive: mode == .leak ? 2 : 0)

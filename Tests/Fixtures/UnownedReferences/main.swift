// `unowned`, `unowned(unsafe)` and `Unmanaged` references are never strong.
// Account.profile → Profile strongly; Profile points back with all three non-strong kinds.
// leak: Profile also has a strong `owner` back to the Account — 2 leaked objects, 1 root cycle; the
// references between them are strong ×2 (profile, owner), unowned ×1 (account) and unmanaged ×2
// (unsafeAccount, unmanagedAccount).
// fixed: no strong back reference: a cycle closed only by unowned/unmanaged references is no leak.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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

import AppleCompatibility
import Dispatch
import Foundation

/// `SettingsApp set KEY VALUE`: sets a setting in the default container's
/// key-value store (`ICT_UBIQUITY_CONTAINER`) and synchronizes.
/// `SettingsApp`: launches `CTAppDelegate` and prints what its observer
/// copied into `UserDefaults` when the store told of other devices' changes
/// (waiting at most 30 s for the first notification; exit status 1 without one).
@main
struct SettingsApp {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 3, arguments[0] == "set" {
            let store = NSUbiquitousKeyValueStore.default
            store.set(arguments[2], forKey: arguments[1])
            guard store.synchronize() else {
                FileHandle.standardError.write(Data("SettingsApp: cannot synchronize the store (no container?)\n".utf8))
                exit(1)
            }
            print("set \(arguments[1]) = \(store.string(forKey: arguments[1]) ?? "?")")
            return
        }
        guard arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: SettingsApp [set KEY VALUE]\n".utf8))
            exit(64)
        }
        let told = DispatchSemaphore(value: 0)
        let delegate = CTAppDelegate()
        delegate.onChange = { told.signal() }
        _ = delegate.application()
        guard told.wait(timeout: .now() + 30) == .success else {
            FileHandle.standardError.write(Data("SettingsApp: no change was told\n".utf8))
            exit(1)
        }
        for line in delegate.copied { print(line) }
    }
}

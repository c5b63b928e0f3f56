import Foundation

/// Why notifications could not be delivered. Every case names the file.
public enum DeliveryError: Error, Equatable, Sendable {
    /// Another process (`iapsim listen`) delivers this state's notifications: two would post
    /// each notification the other has not recorded yet.
    case anotherDeliverer(path: String, pid: Int32?, seconds: Double)
    /// A delivery attempt could not be recorded, or fsynced (`uuid` nil), for a full disk or an
    /// I/O error, so delivering stopped at once: what was posted and not recorded is posted again.
    case cannotRecord(path: String, uuid: String?, reason: String)
}

extension DeliveryError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .anotherDeliverer(let path, let pid, let seconds):
            "\(path): another 'iapsim listen'\(pid.map { " (pid \($0))" } ?? "") delivers these notifications, "
                + "and did for \(seconds.formatted()) s more; stop it first: two deliverers would post each "
                + "notification twice"
        case .cannotRecord(let path, let uuid?, let reason):
            "\(path): \(reason); the delivery of notification \(uuid) could not be recorded, so delivering "
                + "stopped: that notification will be posted again"
        case .cannotRecord(let path, nil, let reason):
            "\(path): \(reason); the delivery attempts could not be made durable, so delivering stopped"
        }
    }
}

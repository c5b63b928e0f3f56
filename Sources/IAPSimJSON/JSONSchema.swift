/// JSON Schema fragments (draft 2020-12's core words) for the schemas iapsim generates from
/// the types that write its JSON: each member declares its own, so a member written is a
/// member described.
public enum JSONSchema {
    /// The pattern of an ISO 8601 date in whole seconds, as iapsim writes dates.
    public static let datePattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
    /// A plain decimal, as iapsim writes prices.
    public static let decimalPattern = "^[0-9]+(\\.[0-9]+)?$"
    /// An ISO 8601 duration of one unit, as a subscription period is written.
    public static let periodPattern = "^P[0-9]+[DWMY]$"

    /// `{"type": …}` with what is given: `nullable` adds `null` to the type (and to `values`).
    public static func of(
        _ type: String, nullable: Bool = false, pattern: String? = nil, values: [String]? = nil,
        description: String? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", nullable ? .array([.string(type), .string("null")]) : .string(type))
        ]
        if let pattern { members.append(("pattern", .string(pattern))) }
        if let values {
            members.append(("enum", .array(values.map(JSONValue.string) + (nullable ? [.null] : []))))
        }
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }

    /// An object of exactly `properties`, requiring `required`.
    public static func object(
        _ properties: [(String, JSONValue)], required: [String], nullable: Bool = false, description: String? = nil
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", nullable ? .array([.string("object"), .string("null")]) : .string("object")),
            ("properties", .object(properties)), ("required", .array(required.map(JSONValue.string))),
            ("additionalProperties", .bool(false)),
        ]
        if let description { members.append(("description", .string(description))) }
        return .object(members)
    }
}

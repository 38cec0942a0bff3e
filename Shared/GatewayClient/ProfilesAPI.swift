public import ContractTypes
public import RPCCore

extension GatewayClient {
    /// Profiles and roles (`rendezvous.identity.v1.Profiles`).
    public var profiles: ProfilesAPI { ProfilesAPI(runner: runner) }
}

/// The Profiles service as an app calls it, always as the signed-in account. Another account's
/// profile that the caller may not see (another app's, an inactive one for a member, one across
/// a block) fails NOT_FOUND `USER_NOT_FOUND`; the rules are in profiles.proto.
public struct ProfilesAPI: Sendable {
    let runner: CallRunner

    /// Every Profiles method the client calls, with its retry and authentication rules: the one
    /// place they are decided.
    enum Methods {
        /// Creates the profile on first read and marks the caller active: repeating it changes
        /// nothing more than the first call did.
        static let getMyProfile = GatewayMethod("Profiles/GetMyProfile", .read, .session)
        /// Not retried: every attempt writes and emits ProfileUpdated, and a repeat landing after
        /// an edit made on another device would undo that edit.
        static let updateProfile = GatewayMethod("Profiles/UpdateProfile", .write, .session)
        static let getProfile = GatewayMethod("Profiles/GetProfile", .read, .session)
        static let getProfileByUsername = GatewayMethod("Profiles/GetProfileByUsername", .read, .session)
        static let checkUsername = GatewayMethod("Profiles/CheckUsername", .read, .session)
        static let listProfiles = GatewayMethod("Profiles/ListProfiles", .read, .session)
        /// Setting the badge it already has is a no-op on the server.
        static let setVerified = GatewayMethod("Profiles/SetVerified", .idempotentWrite, .session)
        /// An applicant applying again gets `changed = false`, no second event.
        static let becomeApplicant = GatewayMethod("Profiles/BecomeApplicant", .idempotentWrite, .session)
        /// Setting the current role again is a no-op with `changed = false`.
        static let setRole = GatewayMethod("Profiles/SetRole", .idempotentWrite, .session)
    }

    private var stub: ProfilesClient { ProfilesClient(client: runner.transport) }

    /// The signed-in account's profile in full (created with defaults on first read); marks the
    /// account active now.
    public func getMyProfile(deadline: Duration? = nil) async throws(GatewayError) -> Profiles.Profile {
        try await runner.run(Methods.getMyProfile, deadline: deadline) { [stub] options in
            try await stub.getMyProfile(options: options)
        }
    }

    /// Sets the fields named in `mask` (ProfileFields' proto names: `"bio"`, `"tags"`,
    /// `"birth_date"`…) to their values in `fields`; an empty value clears the field, and the
    /// fields not named keep theirs. Returns the profile as saved (trimmed, tags deduplicated).
    /// Fails INVALID_ARGUMENT with the rule broken (`INVALID_USERNAME`, `BIO_TOO_LONG`,
    /// `TOO_MANY_TAGS`, `UNDERAGE`…, details naming the field and bound), or ALREADY_EXISTS
    /// `USERNAME_TAKEN`. Sent once: never retried.
    public func updateProfile(_ fields: Profiles.ProfileFields, mask: [String],
                              deadline: Duration? = nil) async throws(GatewayError) -> Profiles.Profile {
        let request = Profiles.UpdateProfileRequest(fields: fields, updateMask: mask)
        return try await runner.run(Methods.updateProfile, deadline: deadline) { [stub] options in
            try await stub.updateProfile(request, options: options)
        }
    }

    /// Another account's profile by its id, in the view the caller may see.
    public func getProfile(accountID: String, deadline: Duration? = nil) async throws(GatewayError) -> Profiles.Profile {
        let request = Profiles.GetProfileRequest(accountID: accountID)
        return try await runner.run(Methods.getProfile, deadline: deadline) { [stub] options in
            try await stub.getProfile(request, options: options)
        }
    }

    /// Another account's profile by username (case-insensitive); the same rules as `getProfile`.
    public func getProfile(username: String, deadline: Duration? = nil) async throws(GatewayError) -> Profiles.Profile {
        let request = Profiles.GetProfileByUsernameRequest(username: username)
        return try await runner.run(Methods.getProfileByUsername, deadline: deadline) { [stub] options in
            try await stub.getProfileByUsername(request, options: options)
        }
    }

    /// Whether the signed-in account could take `username` now, and the name as it would be
    /// stored (trimmed, lower-cased); the caller's own name is available. INVALID_ARGUMENT
    /// `INVALID_USERNAME` when it breaks the rules. A later `updateProfile` can still meet
    /// `USERNAME_TAKEN` if someone takes the name in between.
    public func checkUsername(_ username: String, deadline: Duration? = nil) async throws(GatewayError)
        -> Profiles.CheckUsernameResponse {
        let request = Profiles.CheckUsernameRequest(username: username)
        return try await runner.run(Methods.checkUsername, deadline: deadline) { [stub] options in
            try await stub.checkUsername(request, options: options)
        }
    }

    /// One page of the app's profiles, oldest account first; pass the previous page's
    /// `nextPageToken` for the next (empty on the last page). Profile readers only (FirstDate:
    /// hosts and admins): PERMISSION_DENIED `ROLE_REQUIRED` otherwise.
    public func listProfiles(pageSize: Int32 = 0, pageToken: String = "", activeOnly: Bool = false,
                             deadline: Duration? = nil) async throws(GatewayError) -> Profiles.ListProfilesResponse {
        let request = Profiles.ListProfilesRequest(pageSize: pageSize, pageToken: pageToken, activeOnly: activeOnly)
        return try await runner.run(Methods.listProfiles, deadline: deadline) { [stub] options in
            try await stub.listProfiles(request, options: options)
        }
    }

    /// Sets or clears an account's verified badge. Admins only (PERMISSION_DENIED `ADMIN_ONLY`).
    public func setVerified(accountID: String, verified: Bool,
                            deadline: Duration? = nil) async throws(GatewayError) -> Profiles.Profile {
        let request = Profiles.SetVerifiedRequest(accountID: accountID, verified: verified)
        return try await runner.run(Methods.setVerified, deadline: deadline) { [stub] options in
            try await stub.setVerified(request, options: options)
        }
    }

    /// The signed-in viewer becomes an applicant (FirstDate). Fails FAILED_PRECONDITION
    /// `APPLICATIONS_NOT_OFFERED` or `ROLE_TRANSITION_NOT_ALLOWED`. The session's access token
    /// keeps the old role until `identity.refreshSession()`. Retried when unreachable, so
    /// `changed` may be false although this call made the change.
    public func becomeApplicant(deadline: Duration? = nil) async throws(GatewayError) -> Profiles.RoleAssignment {
        try await runner.run(Methods.becomeApplicant, deadline: deadline) { [stub] options in
            try await stub.becomeApplicant(options: options)
        }
    }

    /// Sets an account's role to one of the app's roles. Admins only (PERMISSION_DENIED
    /// `ADMIN_ONLY`), never their own (`CANNOT_CHANGE_OWN_ROLE`); `UNKNOWN_ROLE` for a role the
    /// app lacks. Retried when unreachable, so `changed` may be false although this call made
    /// the change.
    public func setRole(accountID: String, role: String,
                        deadline: Duration? = nil) async throws(GatewayError) -> Profiles.RoleAssignment {
        let request = Profiles.SetRoleRequest(accountID: accountID, role: role)
        return try await runner.run(Methods.setRole, deadline: deadline) { [stub] options in
            try await stub.setRole(request, options: options)
        }
    }
}

import Foundation
import Runtime

/// Apps from configuration (`RV_IDENTITY_APPS_FILE`): ARCHITECTURE.md says a new product is
/// added by configuration, not code, and each deployment tunes its products' policies.
///
/// The file is JSON: `{"apps": [{"id": "elite", "minimum_age": 21}, {"id": "sparks", ...}]}`.
/// An entry whose id is a standard app changes only the keys it gives; any other id is a new
/// app that starts from `AppPolicy.newApp(id:)` (member/admin roles, active on sign-up, free
/// tier). Keys (all optional but `id`): `sign_in_methods` (apple, google, email, phone,
/// anonymous), `default_role`, `initial_membership_status` (active | waitlisted),
/// `members_only_until_admitted` (only active accounts use the app), `default_tier`,
/// `minimum_password_length`, `apple_audiences`, `google_audiences`, `app_store_bundle_id`,
/// `app_store_products` (product id → tier), `member_referrals`,
/// `public_waitlist_places_per_referral` (0 turns the public waitlist off), `roles`,
/// `applicant_role`, `profile_reader_roles`, `minimum_age` (0 for none),
/// `maximum_profile_photos`. Unknown keys are refused, so a typo does not pass silently.
enum AppPoliciesFile {
    static let variable = "RV_IDENTITY_APPS_FILE"

    /// `standard` changed by the file `RV_IDENTITY_APPS_FILE` names; `standard` when unset.
    static func load(from environment: EnvironmentReader, onto standard: AppPolicies) throws -> AppPolicies {
        guard let path = environment[variable] else { return standard }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: variable, message: "cannot read \(path)")
        }
        return try apply(Array(contents), onto: standard)
    }

    /// `standard` changed by the JSON document `json`; a ConfigurationError says what is wrong.
    static func apply(_ json: [UInt8], onto standard: AppPolicies) throws -> AppPolicies {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch let error as DecodingError {
            throw ConfigurationError(variable: variable, message: "not a valid apps file: \(describe(error))")
        }
        var policies = try standard.appIDs.sorted().map { try standard.policy(for: $0) }
        var seen = Set<String>()
        for entry in document.apps {
            guard seen.insert(entry.id).inserted else {
                throw ConfigurationError(variable: variable, message: "app \(entry.id) is listed twice")
            }
            if let index = policies.firstIndex(where: { $0.id == entry.id }) {
                policies[index] = try entry.applied(to: policies[index])
            } else {
                try checkID(entry.id)
                policies.append(try entry.applied(to: AppPolicy.newApp(id: entry.id)))
            }
        }
        return AppPolicies(policies)
    }

    private static func checkID(_ id: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        guard (2...32).contains(id.count), id.first?.isLetter == true, id.allSatisfy({ allowed.contains($0) }) else {
            throw ConfigurationError(variable: variable,
                                     message: "app id \"\(id)\": 2–32 lowercase letters, digits, _ or -, starting with a letter")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription + path(context)
        case .keyNotFound(let key, let context):
            return "missing \(key.stringValue)" + path(context)
        @unknown default:
            return "\(error)"
        }
    }

    private struct Document: Decodable {
        var apps: [Entry]
    }

    /// One app's keys; nil means "keep".
    private struct Entry: Decodable {
        var id: String
        var signInMethods: [String]?
        var defaultRole: String?
        var initialMembershipStatus: String?
        var membersOnlyUntilAdmitted: Bool?
        var defaultTier: String?
        var minimumPasswordLength: Int?
        var appleAudiences: [String]?
        var googleAudiences: [String]?
        var appStoreBundleID: String?
        var appStoreProducts: [String: String]?
        var memberReferrals: Bool?
        var publicWaitlistPlacesPerReferral: Int?
        var roles: [String]?
        var applicantRole: String?
        var profileReaderRoles: [String]?
        var minimumAge: Int?
        var maximumProfilePhotos: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id
            case signInMethods = "sign_in_methods"
            case defaultRole = "default_role"
            case initialMembershipStatus = "initial_membership_status"
            case membersOnlyUntilAdmitted = "members_only_until_admitted"
            case defaultTier = "default_tier"
            case minimumPasswordLength = "minimum_password_length"
            case appleAudiences = "apple_audiences"
            case googleAudiences = "google_audiences"
            case appStoreBundleID = "app_store_bundle_id"
            case appStoreProducts = "app_store_products"
            case memberReferrals = "member_referrals"
            case publicWaitlistPlacesPerReferral = "public_waitlist_places_per_referral"
            case roles
            case applicantRole = "applicant_role"
            case profileReaderRoles = "profile_reader_roles"
            case minimumAge = "minimum_age"
            case maximumProfilePhotos = "maximum_profile_photos"
        }

        init(from decoder: any Decoder) throws {
            let known = try decoder.container(keyedBy: AnyKey.self)
            let unknown = known.allKeys.map(\.stringValue).filter { CodingKeys(rawValue: $0) == nil }
            guard unknown.isEmpty else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "unknown key \(unknown.sorted().joined(separator: ", "))"))
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            signInMethods = try container.decodeIfPresent([String].self, forKey: .signInMethods)
            defaultRole = try container.decodeIfPresent(String.self, forKey: .defaultRole)
            initialMembershipStatus = try container.decodeIfPresent(String.self, forKey: .initialMembershipStatus)
            membersOnlyUntilAdmitted = try container.decodeIfPresent(Bool.self, forKey: .membersOnlyUntilAdmitted)
            defaultTier = try container.decodeIfPresent(String.self, forKey: .defaultTier)
            minimumPasswordLength = try container.decodeIfPresent(Int.self, forKey: .minimumPasswordLength)
            appleAudiences = try container.decodeIfPresent([String].self, forKey: .appleAudiences)
            googleAudiences = try container.decodeIfPresent([String].self, forKey: .googleAudiences)
            appStoreBundleID = try container.decodeIfPresent(String.self, forKey: .appStoreBundleID)
            appStoreProducts = try container.decodeIfPresent([String: String].self, forKey: .appStoreProducts)
            memberReferrals = try container.decodeIfPresent(Bool.self, forKey: .memberReferrals)
            publicWaitlistPlacesPerReferral = try container.decodeIfPresent(Int.self, forKey: .publicWaitlistPlacesPerReferral)
            roles = try container.decodeIfPresent([String].self, forKey: .roles)
            applicantRole = try container.decodeIfPresent(String.self, forKey: .applicantRole)
            profileReaderRoles = try container.decodeIfPresent([String].self, forKey: .profileReaderRoles)
            minimumAge = try container.decodeIfPresent(Int.self, forKey: .minimumAge)
            maximumProfilePhotos = try container.decodeIfPresent(Int.self, forKey: .maximumProfilePhotos)
        }

        /// `base` with this entry's keys, checked as a whole.
        func applied(to base: AppPolicy) throws -> AppPolicy {
            var policy = base
            func invalid(_ message: String) -> ConfigurationError {
                ConfigurationError(variable: AppPoliciesFile.variable, message: "app \(id): \(message)")
            }
            if let names = signInMethods {
                let methods = names.compactMap(SignInMethod.init(rawValue:))
                guard methods.count == names.count, !methods.isEmpty else {
                    throw invalid("sign_in_methods must list some of \(SignInMethod.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                policy.signInMethods = Set(methods)
            }
            if let roles { policy.roles = roles }
            if let defaultRole { policy.defaultRole = defaultRole }
            if let applicantRole { policy.applicantRole = applicantRole.isEmpty ? nil : applicantRole }
            if let profileReaderRoles { policy.profileReaderRoles = Set(profileReaderRoles) }
            if let status = initialMembershipStatus {
                guard ["active", "waitlisted"].contains(status) else { throw invalid("initial_membership_status is active or waitlisted") }
                policy.initialMembershipStatus = status
            }
            if let membersOnlyUntilAdmitted { policy.membersOnlyUntilAdmitted = membersOnlyUntilAdmitted }
            if let defaultTier { policy.defaultTier = defaultTier }
            if let length = minimumPasswordLength {
                guard (8...128).contains(length) else { throw invalid("minimum_password_length is 8…128") }
                policy.minimumPasswordLength = length
            }
            if let appleAudiences { policy.appleAudiences = Set(appleAudiences) }
            if let googleAudiences { policy.googleAudiences = Set(googleAudiences) }
            if let bundle = appStoreBundleID { policy.appStoreBundleID = bundle.isEmpty ? nil : bundle }
            if let appStoreProducts { policy.appStoreProducts = appStoreProducts }
            if let memberReferrals { policy.memberReferrals = memberReferrals }
            if let places = publicWaitlistPlacesPerReferral {
                guard (0...1000).contains(places) else { throw invalid("public_waitlist_places_per_referral is 0…1000") }
                policy.publicWaitlist = places == 0 ? nil : PublicWaitlistPolicy(placesPerReferral: places)
            }
            if let age = minimumAge {
                guard (0...120).contains(age) else { throw invalid("minimum_age is 0…120") }
                policy.minimumAge = age == 0 ? nil : age
            }
            if let photos = maximumProfilePhotos {
                guard (1...50).contains(photos) else { throw invalid("maximum_profile_photos is 1…50") }
                policy.maximumProfilePhotos = photos
            }
            guard policy.roles.contains(Authorization.adminRole) else { throw invalid("roles must include \(Authorization.adminRole)") }
            guard policy.roles.contains(policy.defaultRole) else { throw invalid("default_role \(policy.defaultRole) is not in roles") }
            if let applicant = policy.applicantRole, !policy.roles.contains(applicant) {
                throw invalid("applicant_role \(applicant) is not in roles")
            }
            guard policy.profileReaderRoles.isSubset(of: Set(policy.roles)) else {
                throw invalid("profile_reader_roles must be roles of the app")
            }
            return policy
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension AppPolicy {
    /// A product added by configuration, before its entry's keys: members and admins, active on
    /// sign-up, email and Apple sign-in.
    static func newApp(id: String) -> AppPolicy {
        AppPolicy(id: id, signInMethods: [.apple, .email], defaultRole: "member", initialMembershipStatus: "active")
    }
}

package benchgen

// Word lists the generator draws names and prose from. They only need to be
// large enough that names stay unique where Go requires it (fields of one
// struct, types of one package); the generator adds suffixes when a list
// runs out.

var groupWords = []string{
	"core", "extensions", "operations", "seedmanagement", "security", "settings",
	"resources", "monitoring", "networking", "storage", "backup", "bastion",
	"certificates", "dns", "provider", "workers", "infrastructure", "controlplane",
	"scheduling", "quotas", "policies", "auditing", "billing", "identity",
	"logging", "metering", "registry", "secrets", "templates", "tenancy",
	"upgrades", "inventory", "placement", "routing", "admission", "autoscaling",
	"catalog", "dashboard", "federation", "gateway", "ingress", "machines",
	"nodes", "observability", "profiles", "projects", "rollouts", "snapshots",
	"topology", "volumes", "webhooks", "maintenance",
}

var kindWords = []string{
	"Shoot", "Seed", "Project", "Quota", "Bastion", "Backup", "Bucket", "Entry",
	"Cluster", "Controller", "Registration", "Deployment", "Extension", "Network",
	"Worker", "Infrastructure", "ControlPlane", "Record", "Certificate", "Issuer",
	"Policy", "Profile", "Binding", "Secret", "Template", "Snapshot", "Volume",
	"Gateway", "Route", "Endpoint", "Machine", "Node", "Pool", "Plan", "Schedule",
	"Job", "Tenant", "Account", "Zone", "Region", "Provider", "Release", "Rollout",
	"Upgrade", "Alert", "Dashboard", "Exporter", "Pipeline",
}

var nestedSuffixes = []string{
	"Config", "Settings", "Options", "Limits", "Strategy", "Reference",
	"Selector", "Template", "Window", "Credentials", "Access", "Target",
	"Source", "Mapping", "Rule", "Requirements",
}

var fieldPrefixes = []string{
	"", "", "", "", "Max", "Min", "Default", "Last", "Desired", "Observed",
	"Target", "Allowed", "Extra", "Primary", "Initial", "Total", "Shared",
}

var fieldNouns = []string{
	"Replicas", "Image", "Region", "Zone", "Purpose", "Labels", "Annotations",
	"Tolerations", "Resources", "UpdateTime", "Timeout", "Interval", "Surge",
	"Unavailable", "Version", "Name", "Namespace", "Domain", "Address", "Port",
	"Protocol", "Endpoint", "Selector", "SecretRef", "Capacity", "Limit",
	"Retention", "Schedule", "Window", "Priority", "Weight", "Count", "Size",
	"Class", "Mode", "Phase", "Reason", "Message", "Generation", "Hash",
	"Checksum", "Owner", "Path", "URL", "Token", "CABundle", "Key", "Prefix",
	"Suffix", "Filter", "Rules", "Zones", "Regions", "Hosts", "Networks",
	"CIDR", "DNSName", "Provider", "Machine", "Volume", "Seed", "Project",
	"Credentials", "Threshold", "Duration", "Budget", "Ratio", "Policy",
}

var docNouns = []string{
	"cluster", "control plane", "worker pool", "seed", "project", "provider",
	"extension", "controller", "machine", "network", "backup bucket",
	"infrastructure", "garden", "operator", "resource", "shoot", "gateway",
}

var docAttrs = []string{
	"name", "configuration", "maximum number", "minimum number", "desired state",
	"observed state", "reference", "list", "set", "timestamp", "duration",
	"selector", "settings", "identifier", "version", "policy", "strategy",
}

var docFollowUps = []string{
	"This field is immutable once it has been set.",
	"Defaults to the value configured by the operator if not set.",
	"It is only respected when the corresponding feature gate is enabled.",
	"The value must be a valid DNS subdomain as defined in RFC 1123.",
	"Changing this value triggers a rolling update of all affected machines.",
	"If omitted, the controller chooses a sensible value on its own.",
	"Values are merged with the defaults of the provider extension.",
	"More info: https://example.cloud/docs/api-reference#configuration",
	"Only one of the fields of this structure may be set at a time.",
	"The controller updates this value on every successful reconciliation.",
	"An empty value means that the setting is disabled for this object.",
	"It is interpreted by the extension and opaque to the core components.",
	"See the documentation of the provider for the list of supported values.",
	"The list is sorted by the controller before it is persisted.",
}

var enumValueWords = []string{
	"evaluation", "testing", "development", "production", "infrastructure",
	"pending", "processing", "succeeded", "failed", "unknown", "enabled",
	"disabled", "automatic", "manual", "rolling", "recreate", "preferred",
	"required", "ignored", "allowed",
}

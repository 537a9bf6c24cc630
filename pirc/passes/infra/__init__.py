"""The pass machinery: what a pass declares, the registry, pipelines, the manager."""

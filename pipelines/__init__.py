"""Named pass pipelines as data (NAME.yaml), shipped in the wheel as `pirc.pipelines`."""

#!/usr/bin/env node
// A committed entry point, so npm can link the `svc` bin at install time, before `prepare` has built dist/.
import '../dist/index.js';

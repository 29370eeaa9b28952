package main

import "flag"

var updateScripts = flag.Bool("update", false, "rewrite testscript expectations")

# clidamonger.R converts IWU's clidamonger data.sol (CM SAF monthly mean
# surface incoming shortwave radiation, SIS, on a 0.2 degree grid over
# 45-56 N, 5-16 E) into the table package solar/climate/germany embeds:
# per grid point over Germany the mean of each calendar month over the
# years FIRST..LAST, in W/m2 with one decimal.
#
# Dev-time only (apt-get install r-base-core); neither the build nor the
# tests need R. Usage (docs/solar.md, "Default climate"):
#
#   fetch github:IWUGERMANY/clidamonger   # brings /work/.mirror/IWUGERMANY+clidamonger/repo
#   git -C /work/.mirror/IWUGERMANY+clidamonger/repo show HEAD:data/data.sol.rda > /tmp/data.sol.rda
#   Rscript scripts/climate/clidamonger.R /tmp/data.sol.rda solar/climate/germany/sis_monthly.csv <commit>
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 3) stop("usage: clidamonger.R data.sol.rda out.csv clidamonger-commit")
FIRST <- 2006; LAST <- 2025 # the last 20 complete years, as IWU's own long-term means (M_LTA_*)
# Germany's extent (VG5000: 47.27-55.06 N, 5.87-15.04 E) plus one grid step
# on every side, so bilinear interpolation has four neighbours everywhere
# in Germany.
LAT <- c(47.0, 55.4); LON <- c(5.6, 15.4)

load(args[1])
d <- data.sol[data.sol$Code_DataType == "MET" & data.sol$Code_Quantity == "I_Hor", ]
d <- d[d$Latitude >= LAT[1] - 1e-9 & d$Latitude <= LAT[2] + 1e-9 & d$Longitude >= LON[1] - 1e-9 & d$Longitude <= LON[2] + 1e-9, ]
d <- d[order(-d$Latitude, d$Longitude), ] # rows north to south, west to east
nlat <- round((LAT[2] - LAT[1]) / 0.2) + 1; nlon <- round((LON[2] - LON[1]) / 0.2) + 1
if (nrow(d) != nlat * nlon) stop(sprintf("%d grid points, want %d x %d", nrow(d), nlat, nlon))
m <- sapply(1:12, function(mo) {
  cols <- sprintf("M_%d_%02d", FIRST:LAST, mo)
  if (!all(cols %in% names(d))) stop("missing months in ", paste(setdiff(cols, names(d)), collapse = " "))
  x <- as.matrix(d[, cols])
  if (anyNA(x)) stop("missing values in month ", mo)
  rowMeans(x)
})
# IWU's own long-term means over the same years must agree (they are rounded to 1 W/m2;
# February differs by up to 0.55: IWU weights the leap years' Februaries by their days).
lta <- as.matrix(d[, sprintf("M_LTA_%02d", 1:12)])
if (unique(d$Year_PeriodStart_LTA) == FIRST && unique(d$Year_PeriodEnd_LTA) == LAST && max(abs(m - lta)) > 0.6) stop("means differ from M_LTA")

out <- file(args[2], "w")
writeLines(c(
  "# Default climate of svc for Germany (package solar/climate/germany): long-term monthly mean global horizontal irradiance.",
  sprintf("# Mean of the monthly means %d-%d of the surface incoming shortwave radiation (SIS) of EUMETSAT CM SAF, W/m2 (the mean over all hours of the month).", FIRST, LAST),
  "# Source: Contains CM SAF data, copyright EUMETSAT (monthly SIS provided by DWD), as tabled by IWU Institut Wohnen und Umwelt in the R package",
  sprintf("# clidamonger 1.5.0 (data.sol, https://github.com/IWUGERMANY/clidamonger commit %s), CC BY 4.0; modified: Germany subset, %d-%d means.", args[3], FIRST, LAST),
  sprintf("# Grid: %d rows from %.1f N southward to %.1f N, %d columns from %.1f E eastward to %.1f E, step 0.2 degrees.", nlat, LAT[2], LAT[1], nlon, LON[1], LON[2]),
  "# Made by scripts/climate/clidamonger.R; columns: lat,lon then January..December."),
  out)
for (i in seq_len(nrow(d))) {
  writeLines(paste(c(sprintf("%.1f", d$Latitude[i]), sprintf("%.1f", d$Longitude[i]), sprintf("%.1f", m[i, ])), collapse = ","), out)
}
close(out)
cat(sprintf("%d grid points, %d-%d, annual mean %.1f..%.1f W/m2\n", nrow(d), FIRST, LAST, min(rowMeans(m)), max(rowMeans(m))))
